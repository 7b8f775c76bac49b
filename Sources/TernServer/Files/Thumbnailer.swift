import CGD
public import Foundation

/// Thumbnails of uploaded images, made with the GD library: each fits inside its requested box
/// (aspect ratio kept) and is never larger than the image itself.
public enum Thumbnailer {
    /// One thumbnail made.
    public struct Thumbnail: Sendable, Equatable {
        public var data: Data
        public var width: Int
        public var height: Int
        /// What was asked for.
        public var maxWidth: Int
        public var maxHeight: Int
        public var mimeType: String
    }

    /// The image's size, or nil when GD cannot read it (not an image, or a format it lacks).
    public static func size(of data: Data, mimeType: String) -> (width: Int, height: Int)? {
        guard let image = load(data, mimeType: mimeType) else { return nil }
        defer { gdImageDestroy(image) }
        return (Int(image.pointee.sx), Int(image.pointee.sy))
    }

    /// Thumbnails for each `(maxWidth, maxHeight)`; empty when the file is not a readable image.
    public static func thumbnails(of data: Data, mimeType: String, sizes: [(Int, Int)]) -> [Thumbnail] {
        guard !sizes.isEmpty, let image = load(data, mimeType: mimeType) else { return [] }
        defer { gdImageDestroy(image) }
        let w = Int(image.pointee.sx)
        let h = Int(image.pointee.sy)
        guard w > 0, h > 0 else { return [] }
        var out: [Thumbnail] = []
        for (maxW, maxH) in sizes where maxW > 0 && maxH > 0 {
            // Fit inside the box without upscaling.
            let scale = min(1.0, min(Double(maxW) / Double(w), Double(maxH) / Double(h)))
            let tw = max(1, Int((Double(w) * scale).rounded()))
            let th = max(1, Int((Double(h) * scale).rounded()))
            guard let thumb = gdImageCreateTrueColor(Int32(tw), Int32(th)) else { continue }
            defer { gdImageDestroy(thumb) }
            gdImageAlphaBlending(thumb, 0)
            gdImageSaveAlpha(thumb, 1)
            gdImageCopyResampled(thumb, image, 0, 0, 0, 0, Int32(tw), Int32(th), Int32(w), Int32(h))
            let jpeg = mimeType == "image/jpeg" || mimeType == "image/jpg"
            var size: Int32 = 0
            guard let ptr = jpeg ? gdImageJpegPtr(thumb, &size, 85) : gdImagePngPtr(thumb, &size), size > 0 else { continue }
            let bytes = Data(bytes: ptr, count: Int(size))
            gdFree(ptr)
            out.append(Thumbnail(data: bytes, width: tw, height: th, maxWidth: maxW, maxHeight: maxH, mimeType: jpeg ? "image/jpeg" : "image/png"))
        }
        return out
    }

    static func load(_ data: Data, mimeType: String) -> gdImagePtr? {
        guard !data.isEmpty, data.count < Int(Int32.max) else { return nil }
        var bytes = [UInt8](data)
        let n = Int32(bytes.count)
        return bytes.withUnsafeMutableBytes { raw -> gdImagePtr? in
            let p = raw.baseAddress
            // Sniff the format rather than trust the declared type.
            let head = Array(data.prefix(12))
            if head.starts(with: [0x89, 0x50, 0x4E, 0x47]) { return gdImageCreateFromPngPtr(n, p) }
            if head.starts(with: [0xFF, 0xD8, 0xFF]) { return gdImageCreateFromJpegPtr(n, p) }
            if head.starts(with: [0x47, 0x49, 0x46]) { return gdImageCreateFromGifPtr(n, p) }
            if head.count >= 12, head[0...3] == [0x52, 0x49, 0x46, 0x46], head[8...11] == [0x57, 0x45, 0x42, 0x50] {
                return gdImageCreateFromWebpPtr(n, p)
            }
            if head.starts(with: [0x42, 0x4D]) { return gdImageCreateFromBmpPtr(n, p) }
            _ = mimeType
            return nil
        }
    }
}
