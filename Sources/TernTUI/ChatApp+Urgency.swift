import TernKit

/// Which actions draw at once (what the user is looking at) and which wait for the next slow frame.
extension ChatApp {
    /// Whether an action changes what the user is looking at (else only badges, counts, the hotlist).
    nonisolated static func isUrgent(_ action: Action, _ state: AppState) -> Bool {
        isUrgent(action, selected: state.selected, threadParent: state.thread?.parent.messageId)
    }

    /// ``isUrgent(_:_:)`` from the channel on screen and the open thread's parent.
    nonisolated static func isUrgent(_ action: Action, selected: String?, threadParent: Int64?) -> Bool {
        let e: ClientEvent
        switch action {
        case .event(let event), .account(_, let event): e = event
        default: return true
        }
        switch e {
        case .messageReceived(let m), .messageSent(let m), .messagePending(let m), .messageFailed(let m), .messageUpdated(let m):
            return m.channelUrl == selected || m.parentMessageId == threadParent
        case .channelUpdated(let c):
            return c.url == selected
        case .unreadCountChanged(let url, _, _, _):
            // The total alone (no channel) is a number in the status bar, whatever is on screen.
            return url != nil && url == selected
        case .typingStarted(let url, _), .typingEnded(let url, _, _), .readReceiptUpdated(let url, _, _),
            .deliveryReceiptUpdated(let url, _), .messageDeleted(let url, _), .reactionUpdated(let url, _, _, _, _),
            .messagesFilled(let url, _), .hugeGap(let url), .messageChangelog(let url, _, _), .channelEvent(let url, _):
            return url == selected
        case .threadInfoUpdated(let url, let parent, _):
            return url == selected || parent == threadParent
        default:
            return true
        }
    }
}
