#ifndef TERN_CNCURSESW_SHIM_H
#define TERN_CNCURSESW_SHIM_H
// SwiftPM drops pkg-config -D flags, so the wide-character API is switched on here.
#define _XOPEN_SOURCE_EXTENDED 1
#define NCURSES_WIDECHAR 1
#include <locale.h>
#include <wchar.h>
#include <poll.h>
#include <ncurses.h>

/// ncurses attributes are macros; Swift sees them through these functions.
static inline int cnc_a_bold(void) { return (int)A_BOLD; }
static inline int cnc_a_reverse(void) { return (int)A_REVERSE; }
static inline int cnc_a_underline(void) { return (int)A_UNDERLINE; }
static inline int cnc_a_dim(void) { return (int)A_DIM; }
static inline int cnc_a_italic(void) { return (int)A_ITALIC; }
static inline WINDOW *cnc_stdscr(void) { return stdscr; }
static inline int cnc_colors(void) { return COLORS; }
static inline int cnc_color_pairs(void) { return COLOR_PAIRS; }
/// Waits up to `ms` for standard input to be readable.
static inline int cnc_wait_stdin(int ms) { struct pollfd p = { 0, POLLIN, 0 }; return poll(&p, 1, ms); }
/// The key code curses gives the sequence of a terminfo key capability (`kUP3` is Alt-↑), or -1.
static inline int cnc_key_code(const char *capability) {
    char *seq = tigetstr(capability);
    if (seq == NULL || seq == (char *)-1) return -1;
    return key_defined(seq);
}
#endif
