# bash completion for mountctl(1)

_mountctl() {
	local cur prev words cword
	_init_completion || return

	local common="--pid --pidfd --ns --container --json --verbose --socket --timeout --help"
	local commands="mount bind remount reconfigure set move umount unmount info list watch apply"
	local attributes="statfs fsinfo ids limits supports capabilities timestamp_info volume_id
		volume_uuid volume_name cell_name domain_name realm_name server_name server_address
		parameter source name_encoding name_codepage io_size"
	local listcolumns="SOURCE TARGET FSTYPE OPTIONS VFS-OPTIONS FS-OPTIONS FSROOT ID PARENT
		UNIQ-ID UNIQ-PARENT MAJ:MIN PROPAGATION"
	local mountopts="ro rw nosuid suid nodev dev noexec exec noatime relatime strictatime
		nodiratime diratime nosymfollow symfollow shared private slave unbindable"

	case $prev in
	--pid | -p | --source-pid)
		COMPREPLY=($(compgen -W "$(ps -e -o pid= 2>/dev/null)" -- "$cur"))
		return
		;;
	--container)
		local names
		names=$({ crun list -q; runc list -q; podman ps --format '{{.Names}}'
			machinectl list --no-legend; } 2>/dev/null | awk '{print $1}')
		COMPREPLY=($(compgen -W "$names" -- "$cur"))
		return
		;;
	--ns | -N | --idmap | --socket | --source-ns)
		_filedir
		return
		;;
	--propagation)
		COMPREPLY=($(compgen -W "private shared slave unbindable" -- "$cur"))
		return
		;;
	-t | --types)
		COMPREPLY=($(compgen -W "$(awk '{print $NF}' /proc/filesystems 2>/dev/null)" -- "$cur"))
		return
		;;
	-S | --source)
		COMPREPLY=($(compgen -W "$(findmnt -rno SOURCE 2>/dev/null | sort -u)" -- "$cur"))
		return
		;;
	-o | --options | --output)
		local prefix=
		if [[ " ${words[*]} " == *" list "* ]]; then
			[[ $cur == *,* ]] && prefix=${cur%,*},
			COMPREPLY=($(compgen -P "$prefix" -W "$listcolumns" -- "${cur##*,}"))
			compopt -o nospace
			return
		fi
		[[ $cur == *,* ]] && prefix=${cur%,*},
		COMPREPLY=($(compgen -P "$prefix" -W "$mountopts" -- "${cur##*,}"))
		compopt -o nospace
		return
		;;
	--pidfd | --timeout | --nth | --mth | --events | --partition | --partition-type)
		return
		;;
	esac

	local cmd= i
	for ((i = 1; i < cword; i++)); do
		case ${words[i]} in
		--pid | -p | --pidfd | --ns | -N | --container | --socket | --timeout) ((i++)) ;;
		-*) ;;
		*) cmd=${words[i]}; break ;;
		esac
	done

	if [[ -z $cmd ]]; then
		COMPREPLY=($(compgen -W "$commands $common" -- "$cur"))
		return
	fi

	local opts=
	case $cmd in
	mount) opts="-t --types -o --options --mkdir --beneath --exclusive --propagation --image --partition --partition-type" ;;
	bind) opts="-o --options --recursive --no-recursive --idmap --propagation --mkdir --beneath --source-pid --source-ns" ;;
	remount | reconfigure) opts="-o --options" ;;
	set) opts="-o --options --recursive --propagation --idmap" ;;
	move) opts="--mkdir --beneath" ;;
	umount | unmount) opts="--lazy --force" ;;
	info) opts="--all -b --bytes --nth --mth --no-fallback" ;;
	list) opts="--table --list -t --types -S --source -o --output -R --submounts" ;;
	watch) opts="--events" ;;
	apply) opts="--dry-run --mkdir" ;;
	esac

	if [[ $cur == -* ]]; then
		COMPREPLY=($(compgen -W "$opts $common" -- "$cur"))
	elif [[ $cmd == info && $prev != info ]] && [[ ${words[cword - 1]} != -* ]] && ((cword > i + 1)); then
		# after the path: attribute names
		local n=0 j
		for ((j = i + 1; j < cword; j++)); do [[ ${words[j]} != -* ]] && ((n++)); done
		if ((n >= 1)); then
			COMPREPLY=($(compgen -W "$attributes" -- "$cur"))
		else
			_filedir
		fi
	else
		_filedir
	fi
}
complete -F _mountctl mountctl
