/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* MOUNTD_TEST_STOP_AT=<step> in mountd's environment: the process (mountd
 * or a worker) stops itself with SIGSTOP on reaching step, so that a test
 * can kill mountd exactly there (tests/guest/70-mountd-faults-kill.sh).
 * Steps: "loop" (a loop device attached, nothing mounted on it yet),
 * "fsmount" (a detached mount made, not placed), "mountpoint" (a mount
 * point made and recorded, nothing moved onto it).  Only whoever sets
 * mountd's environment can set it: root, through the unit. */
void test_stop_at(const char *step);
