import TernKit

/// Reading back while messages arrive: new lines below must not move what is on screen.
extension Reducer {
    func reduceScrolled(_ state: inout AppState, _ action: Action) -> [Effect] {
        // Only a message in the channel on screen adds lines, so only then are they counted.
        guard state.scroll > 0, state.pane.width > 0, case .event(let event) = action, Self.messageChannel(event) == state.selected
        else { return reduceAction(&state, action) }
        let url = state.selected
        let width = state.pane.width
        // Only the lines from the first message the event can touch are laid out, before and after
        // (a channel read back in keeps all its messages: a whole layout twice per message grew with them).
        let tail = Self.eventMessage(event).flatMap { Self.untouchedPrefix(state, by: $0) }
        let before =
            if let tail { layout.lines(for: state, width: width, last: tail.count - tail.prefix).count } else {
                layout.lineCount(state, width: width)
            }
        let effects = reduceAction(&state, action)
        if state.scroll > 0, state.selected == url {
            let after =
                if let tail { layout.lines(for: state, width: width, last: Self.visibleMessages(state).count - tail.prefix).count } else {
                    layout.lineCount(state, width: width)
                }
            state.scroll = max(0, state.scroll + after - before)
        }
        return effects
    }

    static func eventMessage(_ event: ClientEvent) -> Message? {
        switch event {
        case .messagePending(let m), .messageSent(let m), .messageFailed(let m), .messageReceived(let m): m
        default: nil
        }
    }

    /// How many of the shown messages come before any that an event about `m` can add, move, change or
    /// remove (and how many are shown): a stored message takes its place in time before ours not yet
    /// stored, ours replace their line by request id. nil where the event reaches further: in a thread,
    /// or a reply, which changes its parent's reply count.
    static func untouchedPrefix(_ state: AppState, by m: Message) -> (prefix: Int, count: Int)? {
        guard state.thread == nil, m.parentMessageId == 0 else { return nil }
        let all = visibleMessages(state)
        let prefix =
            all.firstIndex {
                $0.status != .succeeded || $0.createdAt >= m.createdAt || (m.messageId > 0 && $0.messageId == m.messageId)
                    || (m.requestId != nil && $0.requestId == m.requestId)
            } ?? all.count
        return (prefix, all.count)
    }

    static func messageChannel(_ event: ClientEvent) -> String? { eventMessage(event)?.channelUrl }
}
