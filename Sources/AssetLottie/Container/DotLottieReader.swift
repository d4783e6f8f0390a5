import Foundation

/// Reads a dotLottie archive from memory: manifest v1 (`animations/`, `images/`) or v2 (`a/`, `i/`),
/// every animation it lists, and the images those animations use, embedded as `data:` URLs.
struct DotLottieReader {
    let configuration: LottieDocumentReader.Configuration

    func read(_ data: Data) throws(LottieError) -> LottieDocument {
        var entries = try DotLottieEntries(data, configuration: configuration)
        let parser = LottieParser(configuration: configuration.parser)

        var manifest: DotLottieManifest?
        if let bytes = try entries.bytes(at: "manifest.json") {
            let json = try parser.parseJSON([UInt8](bytes))
            guard case .object(let object) = json else {
                throw LottieError.invalidArchive.with("manifest.json is not an object")
            }
            manifest = DotLottieManifest(json: object)
        }
        var ids = manifest?.animations.map(\.id) ?? []
        if ids.isEmpty { ids = entries.animationIDsFromFolders() }
        guard !ids.isEmpty else { throw LottieError.invalidArchive.with("the archive holds no animation") }
        guard ids.count <= configuration.maxAnimations else {
            throw LottieError.archiveLimitExceeded.with("\(ids.count) animations (limit \(configuration.maxAnimations))")
        }
        let preferVersion2 = manifest?.isVersion2 ?? false
        var animations: [LottieDocument.Entry] = []
        for id in ids {
            let candidates = preferVersion2 ? ["a/\(id).json", "animations/\(id).json"] : ["animations/\(id).json", "a/\(id).json"]
            guard let path = candidates.first(where: { entries.contains($0) }), let bytes = try entries.bytes(at: path) else {
                throw LottieError.animationNotFound.with("the manifest lists \"\(id)\" but the archive has no such animation")
            }
            var animation: LottieAnimation
            do {
                animation = try parser.parse(bytes)
            } catch {
                throw error.with(error.message + " (in \(path))")
            }
            let embedded = try embedImages(of: &animation, from: &entries)
            animations.append(LottieDocument.Entry(id: id, animation: animation, sourceByteCount: bytes.count + embedded))
        }
        return LottieDocument(format: .zip, manifest: manifest, animations: animations)
    }

    /// Replaces each external image asset whose file the archive holds with a `data:` URL; returns
    /// the bytes of the URLs embedded.
    private func embedImages(of animation: inout LottieAnimation, from entries: inout DotLottieEntries) throws(LottieError) -> Int {
        guard var assets = animation.assets else { return 0 }
        var embedded = 0
        for position in assets.indices {
            guard case .image(var image) = assets[position], !image.isDataURL else { continue }
            var joined = (image.directory ?? "") + image.path
            while joined.hasPrefix("/") { joined.removeFirst() }
            let fileName = String(image.path.split(separator: "/").last ?? "")
            let candidates = [DotLottieEntries.normalize(joined), "images/" + fileName, "i/" + fileName].compactMap { $0 }
            guard let path = candidates.first(where: { entries.contains($0) }),
                  let bytes = try entries.bytes(at: path) else { continue }
            image.path = "data:\(Self.mediaType(of: bytes));base64,\(bytes.base64EncodedString())"
            embedded += image.path.utf8.count
            image.directory = ""
            image.embedded = 1
            assets[position] = .image(image)
        }
        animation.assets = assets
        return embedded
    }

    /// The media type of image bytes, from their magic numbers.
    static func mediaType(of bytes: Data) -> String {
        let head = [UInt8](bytes.prefix(12))
        if head.starts(with: [0x89, 0x50, 0x4E, 0x47]) { return "image/png" }
        if head.starts(with: [0xFF, 0xD8, 0xFF]) { return "image/jpeg" }
        if head.starts(with: Array("GIF8".utf8)) { return "image/gif" }
        if head.count >= 12, head.starts(with: Array("RIFF".utf8)), Array(head[8..<12]) == Array("WEBP".utf8) {
            return "image/webp"
        }
        if head.first == UInt8(ascii: "<") { return "image/svg+xml" }
        return "application/octet-stream"
    }
}
