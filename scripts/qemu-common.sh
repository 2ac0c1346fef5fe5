# QEMU command line shared by guest-run and run.  Sourced.

kernel_image() {
	local k
	# MOUNTD_KERNEL boots another bzImage (a kernel being developed, or pristine 6.12).
	if [ -n "${MOUNTD_KERNEL:-}" ]; then
		k=$MOUNTD_KERNEL
	else
		k=$(scripts_dir=$(dirname "${BASH_SOURCE[0]}"); "$scripts_dir/kernel-build" --dir)/bzImage
	fi
	[ -f "$k" ] || die "no kernel at $k: run 'make kernel' first"
	echo "$k"
}

# MOUNTD_DISK boots another root disk (make check-asan's).
disk_image() {
	local d=${MOUNTD_DISK:-$TOP/build/disk.img}
	[ -f "$d" ] || die "no guest disk at $d: run 'make disk' first"
	echo "$d"
}

# scripts/accel decides (MOUNTD_ACCEL, else a cached probe boot).
qemu_accel_args() {
	case "${MOUNTD_ACCEL:-tcg}" in
	kvm) echo "-accel kvm -cpu host" ;;
	*) echo "-accel tcg,thread=multi -cpu max" ;;
	esac
}

# Kernel command line common to every boot.  panic_on_warn and oops=panic
# turn any kernel WARN into a failed run; panic=-1 reboots at once, and QEMU
# runs with -no-reboot, so a panicking guest ends the run instead of hanging.
base_cmdline() {
	echo "console=ttyS0 root=/dev/vda rw rootfstype=ext4 panic_on_warn=1 oops=panic panic=-1" \
		"systemd.firstboot=off systemd.show_status=error"
}

# The root disk is /dev/vda; /dev/vdb is a scratch disk (scripts/disk-build)
# with one ext4 partition, a block device to try mountctl on.  Both are
# snapshots: nothing a boot writes survives it.  MOUNTD_GUEST_CPUS (default 2)
# is the number of CPUs, e.g. for how bench/load-bench scales.
qemu_base_args() {
	local kernel=$1 disk=$2
	echo "-machine q35 -m ${MOUNTD_GUEST_MEM:-2048} -smp ${MOUNTD_GUEST_CPUS:-2} -nodefaults -no-reboot -display none" \
		"$(qemu_accel_args)" \
		"-kernel $kernel" \
		"-drive file=$disk,format=raw,if=virtio,snapshot=on" \
		"-drive file=$(dirname "$disk")/scratch.img,format=raw,if=virtio,snapshot=on" \
		"-device virtio-rng-pci"
}
