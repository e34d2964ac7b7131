/* fuzz-common.h — what every fuzz target needs.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <stdint.h>
#include <stdlib.h>

#include <glib.h>

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);
int LLVMFuzzerInitialize (int *argc, char ***argv);

static void
fuzz_silent_print_cb (const char *string)
{
}

static void
fuzz_silent_log_cb (const char     *log_domain,
                    GLogLevelFlags  log_level,
                    const char     *message,
                    gpointer        user_data)
{
  /* A critical or a warning is a bug the fuzzer should report: crash on it. */
  if (log_level & (G_LOG_LEVEL_ERROR | G_LOG_LEVEL_CRITICAL | G_LOG_LEVEL_WARNING))
    {
      g_printerr ("%s: %s\n", log_domain ? log_domain : "", message);
      abort ();
    }
}

/* Output of the code under test (usage errors, statistics) is noise at tens of
 * thousands of inputs a second; warnings and criticals still abort. */
static inline void
fuzz_quiet (void)
{
  g_set_print_handler (fuzz_silent_print_cb);
  g_set_printerr_handler (fuzz_silent_print_cb);
  g_log_set_default_handler (fuzz_silent_log_cb, NULL);
}

/* The LLVMFuzzerInitialize of a target that needs nothing but quiet. */
#define FUZZ_DEFINE_QUIET_INITIALIZE()            \
  int                                             \
  LLVMFuzzerInitialize (int    *argc,             \
                        char ***argv)             \
  {                                               \
    fuzz_quiet ();                                \
    return 0;                                     \
  }

/* The input as a NUL-terminated string (the parsers take C strings too). */
static inline char *
fuzz_strndup (const uint8_t *data,
              size_t         size)
{
  char *copy = g_malloc (size + 1);

  memcpy (copy, data, size);
  copy[size] = '\0';
  return copy;
}
