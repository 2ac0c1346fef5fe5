# bash completion for mountctl(1)
#
# The commands, their options and the -o words come from mountctl itself
# ("mountctl __complete commands", "mountctl __complete options [COMMAND]",
# "mountctl __complete words", read from the same tables as its --help and
# its -o parser), so a new option completes without an edit here.  What an option's argument completes to follows
# the name --help gives it (PID, PATH, TYPE, ...).

_mountctl() {
	local cur prev words cword
	_init_completion || return

	local mountctl=${words[0]}
	local attributes="statfs fsinfo ids limits supports capabilities timestamp_info volume_id
		volume_uuid volume_name cell_name domain_name realm_name server_name server_address
		parameter source name_encoding name_codepage io_size"

	# The command is the first word that is neither an option nor the
	# argument of one (options before it are mountctl's own).
	local -A takes=()
	local short long arg cmd= i
	while read -r short long arg; do
		[[ -n $arg && $arg != "["* ]] && takes[$long]=1 && [[ $short != - ]] && takes[$short]=1
	done < <("$mountctl" __complete options 2>/dev/null)
	for ((i = 1; i < cword; i++)); do
		case ${words[i]} in
		--*=* | -) ;;
		-*) [[ -n ${takes[${words[i]}]-} ]] && ((i++)) ;;
		*) cmd=${words[i]}; break ;;
		esac
	done

	# This command's options (those before it when there is none yet).
	local -A argument_of=()
	local options=()
	while read -r short long arg; do
		options+=("$long")
		[[ $short != - ]] && options+=("$short")
		if [[ -n $arg && $arg != "["* ]]; then
			argument_of[$long]=$arg
			[[ $short != - ]] && argument_of[$short]=$arg
		fi
	done < <("$mountctl" __complete options ${cmd:+"$cmd"} 2>/dev/null)

	if [[ -n ${argument_of[$prev]-} ]]; then
		case ${argument_of[$prev]} in
		PID) COMPREPLY=($(compgen -W "$(ps -e -o pid= 2>/dev/null)" -- "$cur")) ;;
		PATH | USERNS | FILE | IMAGE) _filedir ;;
		TYPE | TYPES) COMPREPLY=($(compgen -W "$(awk '{print $NF}' /proc/filesystems 2>/dev/null)" -- "$cur")) ;;
		PROPAGATION) COMPREPLY=($(compgen -W "private shared slave unbindable" -- "$cur")) ;;
		SOURCE) COMPREPLY=($(compgen -W "$(findmnt -rno SOURCE 2>/dev/null | sort -u)" -- "$cur")) ;;
		COLUMNS)
			local prefix= columns="SOURCE TARGET FSTYPE OPTIONS VFS-OPTIONS FS-OPTIONS FSROOT ID
				PARENT UNIQ-ID UNIQ-PARENT MAJ:MIN PROPAGATION"
			[[ $cur == *,* ]] && prefix=${cur%,*},
			COMPREPLY=($(compgen -P "$prefix" -W "$columns" -- "${cur##*,}"))
			compopt -o nospace
			;;
		NAME)
			# Containers, as --container NAME finds them; for root the
			# users' rootless ones too, as UID/NAME names them.
			local names d
			names=$({ crun list -q; runc list -q; podman ps --format '{{.Names}}'
				machinectl list --no-legend; } 2>/dev/null | awk '{print $1}')
			if ((EUID == 0)); then
				for d in /run/user/[0-9]*; do
					[[ -d $d ]] || continue
					names+=" $({ crun --root="$d/crun" list -q
						runc --root="$d/runc" list -q; } 2>/dev/null | sed "s|^|${d##*/}/|")"
				done
			fi
			COMPREPLY=($(compgen -W "$names" -- "$cur"))
			;;
		OPTIONS | ATTRIBUTES)
			local prefix=
			[[ $cur == *,* ]] && prefix=${cur%,*},
			COMPREPLY=($(compgen -P "$prefix" -W "$("$mountctl" __complete words 2>/dev/null)" -- "${cur##*,}"))
			compopt -o nospace
			;;
		esac
		return
	fi

	if [[ $cur == -* ]]; then
		COMPREPLY=($(compgen -W "${options[*]}" -- "$cur"))
		return
	fi
	if [[ -z $cmd || $cmd == help && $i -lt $cword && $((cword - i)) == 1 ]]; then
		COMPREPLY=($(compgen -W "$("$mountctl" __complete commands 2>/dev/null)" -- "$cur"))
		return
	fi
	case $cmd in
	help | list | watch) ;;
	info)
		# PATH first, then attribute names.
		local n=0 j
		for ((j = i + 1; j < cword; j++)); do
			[[ ${words[j]} != -* && -z ${argument_of[${words[j - 1]}]-} ]] && ((n++))
		done
		if ((n >= 1)); then
			COMPREPLY=($(compgen -W "$attributes" -- "$cur"))
		else
			_filedir
		fi
		;;
	*) _filedir ;;
	esac
}
complete -F _mountctl mountctl
