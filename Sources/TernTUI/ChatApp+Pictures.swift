import Foundation
import TernKit
import TernProtocol

/// Image previews: asked for the messages on screen, made (off the drawing thread) for the graphics protocol
/// the `images` setting and the terminal agree on, and made again when either changes.
extension ChatApp {
    /// Image messages on screen get a preview (the server's thumbnail, else the image), drawn by the adapter:
    /// as a picture when the terminal speaks a graphics protocol, else as symbols.
    func askPreviews() {
        guard state.settings.images != .off, let url = state.selected, state.pane.width > 12 else { return }
        let columns = min(48, state.pane.width - 8)
        let graphics = imageProtocol
        // Runs after every action: the kind is looked at in place first (most messages are text), no copies.
        guard let list = state.messages[url] else { return }
        for i in list.indices.suffix(40) where list[i].kind == .file && list[i].status == .succeeded {
            let m = list[i]
            guard !previewsAsked.contains(m.previewKey), m.files.first?.type.lowercased().hasPrefix("image/") == true else { continue }
            previewsAsked.insert(m.previewKey)
            // kitty's ids go round 1…255 (the cells carry the id as their colour); one in use again is sent afresh.
            nextImageId = nextImageId % 255 + 1
            let id = nextImageId
            let (client, r) = route(forKey: m.channelUrl)
            // What tells pictures apart for the terminal: the message id, and with several accounts its channel too.
            let key = accounts.isEmpty ? m.messageId : Int64(truncatingIfNeeded: m.previewKey.hashValue)
            let surface = surface
            Task {
                guard let data = try? await client.previewImageData(r.untagged(m)),
                    let preview = surface.renderImage(Array(data), columns: columns, maxRows: 10, graphics: graphics, id: id, key: key)
                else { return }
                self.dispatch(.previewLoaded(m.previewKey, preview))
            }
        }
    }

    /// The graphics protocol previews are made for: the `images` setting's, or with `auto` what the terminal speaks.
    var imageProtocol: ImageProtocol? {
        switch state.settings.images {
        case .auto: surface.imageProtocol
        case .kitty: .kitty
        case .sixel: .sixel
        case .iterm: .iterm
        case .symbols, .off: nil
        }
    }

    /// The terminal answered what it can draw, or `images` changed: previews made for another protocol are made again.
    func graphicsChanged() {
        let wanted = imageProtocol
        let stale = state.previews.filter { $0.value.graphic?.kind != wanted }.map(\.key)
        guard !stale.isEmpty else { return }
        for id in stale {
            state.previews[id] = nil
            previewsAsked.remove(id)
        }
        askPreviews()
        markDirty(urgent: true)
    }
}
