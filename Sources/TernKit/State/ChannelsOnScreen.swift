/// The channels on screen, as a value: those the user has open (read as their messages come) and those shown
/// but not seen yet (the terminal unfocused, the user away). Both are kept current (caught up after a
/// reconnection, their cache kept); only the open ones are read.
struct ChannelsOnScreen: Sendable, Equatable {
    private var viewing: Set<String> = []
    private var shown: Set<String> = []

    /// The user has the channel open: its messages do not count as unread.
    func isViewing(_ url: String) -> Bool { viewing.contains(url) }

    /// Every channel on screen, open or only shown.
    var all: Set<String> { viewing.union(shown) }

    /// The user opened the channel (or came back to it).
    mutating func open(_ url: String) {
        shown.remove(url)
        viewing.insert(url)
    }

    /// On screen, not seen yet.
    mutating func show(_ url: String) {
        viewing.remove(url)
        shown.insert(url)
    }

    /// Off the screen.
    mutating func close(_ url: String) {
        viewing.remove(url)
        shown.remove(url)
    }
}
