import Foundation

/// The usable files of a dotLottie archive, by normalized path, read into memory on demand with
/// bounded sizes. Junk (`__MACOSX/`, `._*`, `.DS_Store`) and unsafe paths are left out.
struct DotLottieEntries {
    let directory: ZipDirectory
    let configuration: LottieDocumentReader.Configuration
    private var files: [String: ZipDirectory.Entry] = [:]
    private var decompressedBytes = 0

    init(_ data: Data, configuration: LottieDocumentReader.Configuration) throws(LottieError) {
        directory = try ZipDirectory(data, maxEntries: configuration.maxArchiveEntries)
        self.configuration = configuration
        for entry in directory.entries {
            guard !entry.isDirectory, let path = Self.normalize(entry.path), !Self.isJunk(path) else { continue }
            if files[path] == nil { files[path] = entry }
        }
    }

    func contains(_ path: String) -> Bool { files[path] != nil }

    /// The ids of `animations/*.json` or `a/*.json`, sorted, for archives without a usable manifest.
    func animationIDsFromFolders() -> [String] {
        var ids: [String] = []
        for path in files.keys {
            for folder in ["animations/", "a/"] where path.hasPrefix(folder) && path.hasSuffix(".json") {
                let name = path.dropFirst(folder.count).dropLast(5)
                if !name.contains("/") && !name.isEmpty { ids.append(String(name)) }
            }
        }
        return ids.sorted()
    }

    /// The bytes of the file at `path`, or `nil` when there is none.
    mutating func bytes(at path: String) throws(LottieError) -> Data? {
        guard let entry = files[path] else { return nil }
        let remaining = max(0, configuration.maxDecompressedBytes - decompressedBytes)
        let output = try directory.contents(of: entry, maxBytes: remaining)
        decompressedBytes += output.count
        return output
    }

    /// A relative path with `.` and empty components removed, or `nil` when it could escape
    /// (absolute, `..`, backslash, NUL).
    static func normalize(_ raw: String) -> String? {
        if raw.contains("\\") || raw.contains("\0") { return nil }
        var components: [Substring] = []
        for component in raw.split(separator: "/", omittingEmptySubsequences: true) {
            if component == "." { continue }
            if component == ".." { return nil }
            components.append(component)
        }
        guard !components.isEmpty, !raw.hasPrefix("/") else { return nil }
        return components.joined(separator: "/")
    }

    static func isJunk(_ path: String) -> Bool {
        if path.hasPrefix("__MACOSX/") { return true }
        let name = path.split(separator: "/").last ?? ""
        return name.hasPrefix("._") || name == ".DS_Store"
    }
}
