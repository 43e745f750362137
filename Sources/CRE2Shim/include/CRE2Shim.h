// CRE2Shim: RE2 (Debian libre2) behind a small C interface, for GoRegexp (SondeRun): the regular
// expressions of blackbox_exporter's configuration, written in Go's syntax, compiled with the
// options that make RE2 read them as Go's regexp does (Perl syntax, leftmost-first, UTF-8) and
// matched in time linear in the text.
//
// Threading: a compiled expression is immutable; matching it from several threads at once is
// safe (RE2's own guarantee). Compile and free are the caller's to pair.
#ifndef SONDE_RE2_SHIM_H
#define SONDE_RE2_SHIM_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// A compiled expression (an RE2 object).
typedef struct sonde_re2 sonde_re2;

/// Why a pattern did not compile: RE2's error code (`RE2::ErrorCode`, 0 none) and the part of the
/// pattern it concerns (NUL-terminated, cut to fit).
typedef struct {
    int code;
    char argument[256];
} sonde_re2_error;

/// Compiles `length` bytes of `pattern` (UTF-8) with Go's reading of the syntax (not POSIX,
/// leftmost-first, UTF-8, case-sensitive unless `(?i)`, `.` not matching a newline unless `(?s)`),
/// using at most `max_memory` bytes for the program and its matching caches. nil on failure, with
/// `error` filled. Nothing is logged.
sonde_re2 *sonde_re2_compile(const char *pattern, size_t length, int64_t max_memory, sonde_re2_error *error);

/// Frees what `sonde_re2_compile` returned (nil is ignored).
void sonde_re2_free(sonde_re2 *expression);

/// The number of capturing groups (group 0, the whole match, not counted).
int sonde_re2_group_count(const sonde_re2 *expression);

/// The name of capturing group `group` (1-based), NUL-terminated and owned by the expression;
/// nil for an unnamed group or a number out of range.
const char *sonde_re2_group_name(const sonde_re2 *expression, int group);

/// RE2's measure of the compiled program's size (instructions): the cost of one text byte
/// when RE2 has to fall back from its DFA to its NFA.
int sonde_re2_program_size(const sonde_re2 *expression);

/// Searches `length` bytes of `text` (unanchored) for the first match, as Go's `FindSubmatchIndex`.
/// With `groups` > 0, `offsets` (2 × `groups` values) receives the start and end byte offsets of
/// group 0 (the whole match) up to group `groups - 1`, -1 for a group that took no part; with
/// `groups` 0 only whether there is a match is found (RE2's fastest path). Returns 1 on a match, 0
/// without one (offsets then untouched).
int sonde_re2_match(const sonde_re2 *expression, const void *text, size_t length, int groups, int64_t *offsets);

#ifdef __cplusplus
}
#endif

#endif
