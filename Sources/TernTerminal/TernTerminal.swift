@preconcurrency import CNCursesw
import TernTUI

/// The thin terminal adapter: the only code that calls ncurses. Filled by the terminal client issue.
public enum TernTerminal {
    /// The ncurses version string the adapter is linked against.
    public static var cursesVersion: String { String(cString: curses_version()) }
}
