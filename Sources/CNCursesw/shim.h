#ifndef TERN_CNCURSESW_SHIM_H
#define TERN_CNCURSESW_SHIM_H
// SwiftPM drops pkg-config -D flags, so the wide-character API is switched on here.
#define _XOPEN_SOURCE_EXTENDED 1
#define NCURSES_WIDECHAR 1
#include <locale.h>
#include <wchar.h>
#include <poll.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
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
/// The columns curses counts for a character (the C library's wcwidth, which ncursesw uses too).
static inline int cnc_wcwidth(unsigned int c) { return wcwidth((wchar_t)c); }
/// Waits up to `ms` for standard input to be readable.
static inline int cnc_wait_stdin(int ms) { struct pollfd p = { 0, POLLIN, 0 }; return poll(&p, 1, ms); }
/// The write end of the adapter's wake-up pipe: the SIGWINCH handler writes a byte to it.
static int cnc_wake_write_fd = -1;
static void cnc_on_winch(int sig) {
    (void)sig;
    if (cnc_wake_write_fd >= 0) { char c = 'w'; ssize_t r = write(cnc_wake_write_fd, &c, 1); (void)r; }
}
/// Resizes wake the adapter through its pipe (instead of curses' own handler).
static inline void cnc_install_winch(int fd) {
    cnc_wake_write_fd = fd;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = cnc_on_winch;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = SA_RESTART;
    sigaction(SIGWINCH, &sa, NULL);
}
/// Waits (ms < 0: for ever) until standard input or the wake-up pipe is readable: bit 1 input, bit 2 wake,
/// bit 4 the terminal is gone (hang-up, error).
static inline int cnc_wait_input(int wakefd, int ms) {
    struct pollfd p[2] = { { 0, POLLIN, 0 }, { wakefd, POLLIN, 0 } };
    int r = poll(p, 2, ms);
    if (r <= 0) return 0;
    return ((p[0].revents & POLLIN) ? 1 : 0) | ((p[1].revents & POLLIN) ? 2 : 0)
        | ((p[0].revents & (POLLHUP | POLLERR | POLLNVAL)) ? 4 : 0);
}
/// The terminal's size from the kernel; 0 on success.
static inline int cnc_term_size(int *w, int *h) {
    struct winsize ws;
    if (ioctl(1, TIOCGWINSZ, &ws) != 0 || ws.ws_col == 0) return -1;
    *w = ws.ws_col; *h = ws.ws_row;
    return 0;
}
/// The key code curses gives the sequence of a terminfo key capability (`kUP3` is Alt-↑), or -1.
static inline int cnc_key_code(const char *capability) {
    char *seq = tigetstr(capability);
    if (seq == NULL || seq == (char *)-1) return -1;
    return key_defined(seq);
}
#endif
