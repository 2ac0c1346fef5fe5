/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* The x86_64 numbers of the system calls bookworm's headers do not know:
 * fsinfo() from kernel/patches, statmount() and listmount() from 6.8. */
#ifndef __NR_fsinfo
#define __NR_fsinfo 340
#endif
#ifndef __NR_statmount
#define __NR_statmount 457
#endif
#ifndef __NR_listmount
#define __NR_listmount 458
#endif
