/* SPDX-License-Identifier: GPL-3.0-or-later */

#define G_LOG_DOMAIN "gml-allocator"

#include "config.h"

#include "gml-device.h"
