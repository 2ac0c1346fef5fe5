/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* The version of mountd and mountctl: GetInfo, mountd --version, mountctl --version. */
#define MOUNTD_VERSION "0.1"
