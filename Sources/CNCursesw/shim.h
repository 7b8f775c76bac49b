#ifndef TERN_CNCURSESW_SHIM_H
#define TERN_CNCURSESW_SHIM_H
// SwiftPM drops pkg-config -D flags, so the wide-character API is switched on here.
#define _XOPEN_SOURCE_EXTENDED 1
#define NCURSES_WIDECHAR 1
#include <locale.h>
#include <wchar.h>
#include <ncurses.h>

/// ncurses attributes are macros; Swift sees them through these functions.
static inline int cnc_a_bold(void) { return (int)A_BOLD; }
static inline int cnc_a_reverse(void) { return (int)A_REVERSE; }
static inline int cnc_a_underline(void) { return (int)A_UNDERLINE; }
static inline int cnc_a_dim(void) { return (int)A_DIM; }
#endif
