/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The user's files, as `cp` and `install` treat them: an input is read
 * only if it is a regular file (a FIFO would block open(2) until a
 * writer came), opened without blocking and checked on the open file; an
 * output replaced atomically is the file a symlink names (the link stays
 * a link), and a device is written through, never replaced.  The
 * temporary files of a replacement are named `.BASE.rmc-PID.tmp` beside
 * it: hidden, removed by Kbuild's `make clean` (its `.*.tmp` pattern), and
 * removed by the next run once their process is gone.
 */
#ifndef ELF_FILES_H
#define ELF_FILES_H

#include <stdbool.h>
#include <sys/stat.h>

/*
 * Opens PATH for reading if it is a regular file (FIFO too if allow_fifo:
 * a stream reader waits for its writer as cat does); *fd and *st are set.
 * NULL, or why not ("not a regular file", or strerror's words).
 */
const char *file_open_input(const char *path, bool allow_fifo, int *fd, struct stat *st);

/*
 * The path PATH's symlinks lead to (the last component's links followed,
 * relative ones from the link's directory), even if that file does not
 * exist yet: what replacing PATH must rename over.  NULL with errno set
 * (ELOOP, ENOMEM).  The caller frees it.
 */
char *file_follow_links(const char *path);

/* The temporary file for replacing PATH: `DIR/.BASE.rmc-PID.tmp`.  The caller frees it. */
char *file_temp_name(const char *path);

/*
 * Removes the temporary files of earlier runs on PATH whose process is
 * gone (killed before it could remove them): only PATH's own (other
 * objects of the directory may be in the middle of a parallel build), only
 * those whose pid is not alive.  How many were removed.
 */
unsigned file_remove_stale_temps(const char *path);

#endif
