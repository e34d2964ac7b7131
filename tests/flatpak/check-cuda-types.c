/* check-cuda-types.c — our own CUDA Driver API declarations against the toolkit's cuda.h.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The Flatpak builds the CUDA backend with src/core/engine/gml-cuda-types.h instead of cuda.h.
 * This file includes cuda.h first and then our header in its own-types mode, so the
 * compiler sees both: each of our prototypes redeclares cuda.h's (a different parameter
 * or result type is a "conflicting types" error), and the static assertions below
 * compare every result code and the C types behind CUdevice, CUdeviceptr and
 * CUcontext.  It is compiled, not run, by the test that names it.
 */

#include <cuda.h>

#undef GML_CUDA_OWN_TYPES
#define GML_CUDA_OWN_TYPES 1
#include "gml-cuda-types.h"

#define GML_CHECK_RESULT(name, value) \
  _Static_assert ((long) (name) == (value), #name " is not " #value " in cuda.h");
GML_CUDA_RESULTS (GML_CHECK_RESULT)

_Static_assert (__builtin_types_compatible_p (CUdevice, GML_CU_DEVICE_C_TYPE),
                "CUdevice is not the type gml-cuda-types.h declares");
_Static_assert (__builtin_types_compatible_p (CUdeviceptr, GML_CU_DEVICEPTR_C_TYPE),
                "CUdeviceptr is not the type gml-cuda-types.h declares");
_Static_assert (__builtin_types_compatible_p (CUcontext, struct CUctx_st *),
                "CUcontext is not a pointer to struct CUctx_st");
_Static_assert (sizeof (CUresult) == sizeof (int),
                "CUresult is not int-sized");
