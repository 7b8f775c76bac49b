import TernKit

/// UI state, key table, reducer and views rendered into a cell grid. Filled by the terminal
/// client issue; never imports curses.
public enum TernTUI {
    public static let engineVersion = TernKit.sdkVersion
}
