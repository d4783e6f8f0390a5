import ArgumentParser
import AssetLoading
import AssetStorage
import Foundation

extension CacheCommand {
    /// `assetpipe cache show URL|HASH [--json]`: one entry's metadata, as stored.
    struct Show: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print one entry's metadata: its URL, size, kind, dates, validators, checksum and HTTP fields.",
            discussion: """
                The entry is named by its URL (or any cache key) or by its file name, the 64-digit SHA-256 \
                of the key. With --json the metadata is printed as the cache keeps it (the same JSON as \
                <hash>.meta.json). Exits 1 when there is no such entry.
                """)
        @OptionGroup var cache: CacheOptions
        @OptionGroup var output: OutputOptions
        @Argument(help: ArgumentHelp("A URL or cache key, or the entry's 64-digit hex file name.", valueName: "url|hash"))
        var entry: String

        func run() throws {
            let found = try CacheCommand.withCache(cache) { cache -> CacheMetadata? in
                if Self.isHash(entry), let meta = try cache.metadata(forHash: entry) { return meta }
                let normalized = AssetLoader.defaultCacheKey(for: entry)
                if let meta = try cache.metadata(forKey: normalized) { return meta }
                return normalized == entry ? nil : try cache.metadata(forKey: entry)
            }
            guard let meta = found else {
                CLIOutput.error("no entry for \(entry) in \(cache.directory.path)")
                throw ExitCode.failure
            }
            if output.json {
                FileHandle.standardOutput.write(Data(meta.jsonBytes + [0x0A]))
                return
            }
            let lines = Self.lines(meta)
            // one column for the values, past the longest label (a header's name can be long)
            let width = max(14, (lines.map(\.0.count).max() ?? 0) + 1)
            for (name, value) in lines { print(name.padding(toLength: width, withPad: " ", startingAt: 0) + value) }
        }

        static func isHash(_ text: String) -> Bool {
            text.utf8.count == 64 && text.utf8.allSatisfy { (48...57).contains($0) || (97...102).contains($0) || (65...70).contains($0) }
        }

        /// The metadata as labelled lines for people.
        static func lines(_ meta: CacheMetadata) -> [(String, String)] {
            func date(_ d: Date?) -> String { d.map { ISO8601DateFormatter().string(from: $0) } ?? "-" }
            var lines: [(String, String)] = [
                ("key", meta.key),
                ("hash", CacheKeyHash.fileName(for: meta.key)),
                ("url", meta.originalUrlString ?? "-"),
                ("kind", meta.kind.rawValue),
                ("size", "\(meta.size) (\(CLIOutput.bytes(meta.size)))"),
                ("content type", meta.contentType ?? "-"),
                ("stored", date(meta.createdDate)),
                ("last access", date(meta.lastAccessTime)),
                ("accesses", "\(meta.accessCount)"),
                ("etag", meta.eTag ?? "-"),
                ("last modified", meta.lastModified ?? "-"),
                ("expires", date(meta.expirationDate)),
                ("checksum", meta.checksum),
            ]
            if let http = meta.http {
                lines.append(("status", "\(http.status)"))
                lines.append(("requested", date(http.requestTime)))
                lines.append(("received", date(http.responseTime)))
                for header in http.headers { lines.append(("  " + header.name, header.value)) }
            }
            return lines
        }
    }
}
