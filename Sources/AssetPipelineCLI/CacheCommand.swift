import ArgumentParser
import AssetStorage
import Foundation

/// `assetpipe cache stats|show|verify|prune|clear`.
struct CacheCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "cache",
        abstract: "Inspect and maintain the disk cache and its chunk store.",
        subcommands: [Stats.self, Show.self, Verify.self, Prune.self, Clear.self]
    )

    /// Runs `body` with the opened chunk store, or returns nil when the cache has none; a storage
    /// error is reported and exits 1.
    static func withChunkStore<T>(_ options: CacheOptions, _ body: (ChunkStore) throws -> T) throws -> T? {
        do {
            guard let store = try options.openChunkStoreIfPresent() else { return nil }
            defer { store.close() }
            return try body(store)
        } catch let error as StorageError {
            CLIOutput.error("cache \(options.directory.path): chunks: \(error)")
            throw ExitCode.failure
        }
    }

    /// Runs `body` with the opened cache; a storage error is reported and exits 1.
    static func withCache<T>(_ options: CacheOptions, _ body: (DiskCache) throws -> T) throws -> T {
        do {
            let cache = try options.openDiskCache()
            defer { cache.close() }
            return try body(cache)
        } catch let error as StorageError {
            CLIOutput.error("cache \(options.directory.path): \(error)")
            throw ExitCode.failure
        }
    }

    struct Stats: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Entries and bytes, in all and per kind.")
        @OptionGroup var cache: CacheOptions
        @OptionGroup var output: OutputOptions

        func run() throws {
            let stats = try CacheCommand.withCache(cache) { $0.statistics }
            let capacity = DiskCache.Configuration(directory: cache.directory).maxBytes
            let chunks = try CacheCommand.withChunkStore(cache) { $0.statistics }
            if output.json {
                var perKind: [String: Any] = [:]
                for (kind, s) in stats.perKind { perKind[kind.rawValue] = ["entries": s.entries, "bytes": s.bytes] }
                CLIOutput.printJSON([
                    "directory": cache.directory.path, "entries": stats.entries, "bytes": stats.bytes,
                    "capacity": capacity, "perKind": perKind,
                    "chunks": ["resources": chunks?.resources ?? 0, "chunks": chunks?.chunks ?? 0, "bytes": chunks?.bytes ?? 0],
                ])
            } else {
                print("directory  \(cache.directory.path)")
                print("entries    \(stats.entries)")
                print("bytes      \(stats.bytes) (\(CLIOutput.bytes(stats.bytes)) of a default \(CLIOutput.bytes(capacity)) limit)")
                for kind in AssetKind.allCases {
                    guard let s = stats.perKind[kind] else { continue }
                    print("  \(kind.rawValue.padding(toLength: 8, withPad: " ", startingAt: 0)) \(s.entries) entries, \(CLIOutput.bytes(s.bytes))")
                }
                if let chunks {
                    print("chunks     \(chunks.resources) resources, \(chunks.chunks) chunks, \(CLIOutput.bytes(chunks.bytes)) (video ranges)")
                }
            }
        }
    }

    struct Verify: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Re-read every entry and every chunk, check sizes and checksums, remove the bad ones.",
            discussion: """
                Entries are checked against their metadata, the chunks of video ranges (chunks/) against \
                their resource's record. Exits 1 when it found (and removed) anything corrupt, 0 when all \
                was whole.
                """)
        @OptionGroup var cache: CacheOptions
        @OptionGroup var output: OutputOptions

        func run() throws {
            let (open, report) = try CacheCommand.withCache(cache) { ($0.openReport, try $0.verify()) }
            let chunks = try CacheCommand.withChunkStore(cache) { store in (store.repairedAtOpen, try store.verify()) }
            let chunkReport = chunks?.1 ?? ChunkStore.VerifyReport()
            // Entries whose metadata was unreadable were found and removed while opening.
            let corrupt = report.corrupt + open.removedCorrupt
            let removed = report.removed + open.removedCorrupt
            if output.json {
                CLIOutput.printJSON([
                    "checked": report.checked + open.removedCorrupt, "corrupt": corrupt, "removed": removed,
                    "orphansRemoved": open.removedOrphans, "temporariesRemoved": open.removedTemporaries,
                    "problems": report.problems,
                    "chunks": [
                        "resources": chunkReport.resources, "checked": chunkReport.checked, "corrupt": chunkReport.corrupt,
                        "removed": chunkReport.removed, "repairedAtOpen": chunks?.0 ?? 0, "problems": chunkReport.problems,
                    ] as [String: Any],
                ])
            } else {
                for problem in report.problems { print("corrupt: \(problem)") }
                print("checked \(report.checked + open.removedCorrupt), corrupt \(corrupt), removed \(removed)"
                    + (open.removedOrphans + open.removedTemporaries > 0
                        ? " (and \(open.removedOrphans) orphans, \(open.removedTemporaries) temporary files)" : ""))
                if let chunks {
                    for problem in chunkReport.problems { print("corrupt chunk: \(problem)") }
                    print("chunks: checked \(chunkReport.checked) in \(chunkReport.resources) resources, corrupt \(chunkReport.corrupt), removed \(chunkReport.removed)"
                        + (chunks.0 > 0 ? " (and \(chunks.0) left by interrupted writers)" : ""))
                }
            }
            if corrupt > 0 || chunkReport.corrupt > 0 { throw ExitCode.failure }
        }
    }

    struct Prune: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Remove expired entries, then the least recently used, down to the limits given.",
            discussion: """
                The chunks of video ranges (chunks/) are pruned too: resources stored longer ago than \
                --max-age, then the least recently used chunks down to --max-chunk-bytes (default: the \
                chunk store's budget, 1 GiB). With --derived-store, the bucket's variants written longer \
                ago than --max-age are removed as well.
                """)
        @OptionGroup var cache: CacheOptions
        @OptionGroup var output: OutputOptions
        @OptionGroup var derived: DerivedStoreOptions
        @OptionGroup var s3: S3Options
        @Option(name: .customLong("max-size"), help: ArgumentHelp("Keep at most this many bytes of entries.", valueName: "bytes"))
        var maxSize: Int64?
        @Option(name: .customLong("max-age"), help: ArgumentHelp("Remove entries and chunked resources stored longer ago than this.", valueName: "seconds"))
        var maxAge: Double?
        @Option(name: .customLong("max-count"), help: ArgumentHelp("Keep at most this many entries.", valueName: "n"))
        var maxCount: Int?
        @Option(name: .customLong("max-chunk-bytes"), help: ArgumentHelp(
            "Keep at most this many bytes of chunks (default: the chunk store's budget).", valueName: "bytes"))
        var maxChunkBytes: Int64?

        func validate() throws {
            guard maxSize != nil || maxAge != nil || maxCount != nil || maxChunkBytes != nil else {
                throw ValidationError("give at least one of --max-size, --max-age, --max-count, --max-chunk-bytes")
            }
            if let maxSize, maxSize < 0 { throw ValidationError("--max-size must not be negative") }
            if let maxAge, maxAge < 0 || !maxAge.isFinite { throw ValidationError("--max-age must be a non-negative number") }
            if let maxCount, maxCount < 0 { throw ValidationError("--max-count must not be negative") }
            if let maxChunkBytes, maxChunkBytes < 0 { throw ValidationError("--max-chunk-bytes must not be negative") }
            if derived.derivedStore != nil, maxAge == nil { throw ValidationError("--derived-store is pruned by --max-age") }
        }

        func run() async throws {
            let shared = try await pruneDerivedStore()
            let (removed, stats) = try CacheCommand.withCache(cache) { cache in
                (try cache.prune(maxBytes: maxSize, maxCount: maxCount, maxAge: maxAge), cache.statistics)
            }
            let budget = maxChunkBytes ?? ChunkStore.Configuration(directory: cache.directory).maxBytes
            let chunks = try CacheCommand.withChunkStore(cache) { store in
                (try store.prune(maxBytes: budget, maxAge: maxAge), store.statistics)
            }
            if output.json {
                var object: [String: Any] = [
                    "removed": removed.entries, "removedBytes": removed.bytes,
                    "entries": stats.entries, "bytes": stats.bytes,
                    "chunks": [
                        "removedResources": chunks?.0.resources ?? 0, "removedChunks": chunks?.0.chunks ?? 0,
                        "removedBytes": chunks?.0.bytes ?? 0, "resources": chunks?.1.resources ?? 0,
                        "chunks": chunks?.1.chunks ?? 0, "bytes": chunks?.1.bytes ?? 0,
                    ],
                ]
                if let shared {
                    object["derivedStore"] = ["removed": shared.removed, "removedBytes": shared.removedBytes, "kept": shared.kept]
                }
                CLIOutput.printJSON(object)
            } else {
                if let shared {
                    print("removed \(shared.removed) variants (\(CLIOutput.bytes(shared.removedBytes))) from the derived store; \(shared.kept) remain")
                }
                print("removed \(removed.entries) entries (\(CLIOutput.bytes(removed.bytes))); \(stats.entries) entries (\(CLIOutput.bytes(stats.bytes))) remain")
                if let (pruned, left) = chunks {
                    print("removed \(pruned.chunks) chunks (\(CLIOutput.bytes(pruned.bytes)), \(pruned.resources) whole resources); \(left.chunks) chunks (\(CLIOutput.bytes(left.bytes))) remain")
                }
            }
        }
    }

    struct Clear: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Remove every entry, and every chunk of the video ranges.")
        @OptionGroup var cache: CacheOptions
        @OptionGroup var output: OutputOptions

        func run() throws {
            let removed = try CacheCommand.withCache(cache) { try $0.removeAll() }
            let chunks = try CacheCommand.withChunkStore(cache) { store -> ChunkStore.Statistics in
                let before = store.statistics
                try store.removeAll()
                return before
            }
            if output.json {
                CLIOutput.printJSON([
                    "removed": removed.entries, "removedBytes": removed.bytes,
                    "removedChunkResources": chunks?.resources ?? 0, "removedChunkBytes": chunks?.bytes ?? 0,
                ])
            } else {
                print("removed \(removed.entries) entries (\(CLIOutput.bytes(removed.bytes)))")
                if let chunks { print("removed \(chunks.resources) chunked resources (\(CLIOutput.bytes(chunks.bytes)))") }
            }
        }
    }
}
