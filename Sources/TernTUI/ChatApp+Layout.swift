import Foundation

/// The split panes kept between runs (`layout = "restore"`).
extension ChatApp {
    /// Writes the layout when it changed (a file of a few hundred bytes, written in order).
    func saveLayout() {
        guard let layoutPath, state.pendingLayout == nil else { return }
        let layout = Reducer.layoutToSave(state)
        guard layout != savedLayout else { return }
        savedLayout = layout
        if let layout, let data = try? JSONEncoder().encode(layout) {
            try? FileManager.default.createDirectory(atPath: (layoutPath as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            try? data.write(to: URL(fileURLWithPath: layoutPath), options: .atomic)
        } else {
            try? FileManager.default.removeItem(atPath: layoutPath)
        }
    }
}
