// A child process for the loader tests that need a process of their own (not a product): an
// AssetLoader over a DiskCache in DIR, loading from a loopback origin whose every path answers `SIZE`
// bytes of TestContent's pattern, driven by commands on standard input, one JSON line of results on
// standard output per command. The disk-fault tests change its disk or its limits; the large-body
// test measures its peak memory, which in the test process moves with every test running beside it.
//
//   LoaderWorker DIR BASEURL SIZE
//   load PREFIX FROM TO             load BASEURL/PREFIX/i for i in FROM..<TO, 8 at a time; check every body
//   load-removing PREFIX FROM TO    the same, and remove DIR as soon as a store's temporary file
//                                   (`*.tmp`, beside its entry) exists in it: a store cut mid-body
//   check                           read every key loaded so far from the cache: whole or absent, never torn
//   fill PATH BYTES                 write a file of zeros (stops quietly when the disk is full)
//   rm PATH                         remove a file or a directory tree
//   sh COMMAND                      run a shell command (in this process's mount namespace)
//   hold FREE                       open /dev/null until the limit, then close FREE of them again
//   release                         close the descriptors `hold` opened
//   stream PATH                     load BASEURL/PATH once as a video (any size; the body goes to the
//                                   cache and is not read back) and report its outcome, its size and how
//                                   far this process's peak resident memory rose above the resident
//                                   memory before the load
//   serve LENGTH                    start a TestOrigin in this process whose /huge answers LENGTH bytes of
//                                   the pattern (a generated body), and report its port; the peak
//                                   resident memory starts again here
//   peak                            how far the peak resident memory rose above the resident memory at
//                                   the last `serve` or `stream`
//   quit
//
// Runs where the test puts it: under `unshare -m` with DIR on a small tmpfs, with `ulimit -n 64`, or
// as it is.
import AssetLoading
import AssetStorage
import AssetTestSupport
import Foundation

let args = CommandLine.arguments
guard args.count == 4, let size = Int(args[3]) else {
    FileHandle.standardError.write(Data("usage: LoaderWorker DIR BASEURL SIZE\n".utf8))
    exit(2)
}
let directory = URL(fileURLWithPath: args[1])
let base = args[2]
let expected = Data(TestContent.generatedBytes(0..<size))

/// Whether a store's temporary file (`SHARD/*.tmp`) exists under DIR.
@Sendable func temporaryFileExists() -> Bool {
    let names = FileManager.default.enumerator(atPath: directory.path)?.compactMap { $0 as? String } ?? []
    return names.contains { $0.hasSuffix(".tmp") && !$0.hasPrefix("tmp/") }
}

func reply(_ object: [String: Any]) {
    let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data("{}".utf8)
    FileHandle.standardOutput.write(data + Data("\n".utf8))
}

do {
    let cache = try DiskCache(configuration: .init(directory: directory, maxBytes: .max, maxCount: .max))
    var config = AssetLoader.Configuration()
    config.retry = .none
    let loader = AssetLoader(diskCache: cache, configuration: config)
    var loadedKeys: [String] = []
    var held: [Int32] = []
    var served: TestOrigin?
    var residentAtStart = 0

    /// Starts the peak again at the resident size (clear_refs 5) and notes that size; a kernel that
    /// refuses leaves an earlier peak, which only makes the growth measured larger.
    func startMeasuring() {
        ProcessMemory.resetPeak()
        residentAtStart = ProcessMemory.value("VmRSS") ?? 0
    }

    func load(_ prefix: String, _ range: Range<Int>, removing: Bool) async -> [String: Any] {
        var counts = ["loaded": 0, "correct": 0, "stored": 0, "storeFailures": 0, "failed": 0]
        var errors: [String] = []
        await withTaskGroup(of: (Bool, Bool, Bool, String?).self) { group in
            if removing {
                group.addTask {
                    // Polled every 2 ms: the bodies come in pieces 200 ms apart, so a temporary file
                    // lives for hundreds of milliseconds before its commit.
                    // Cancelled when every load is done without one (the test then sees no store failure).
                    while !temporaryFileExists() {
                        if Task.isCancelled { return (false, false, false, "removal") }
                        try? await Task.sleep(for: .milliseconds(2))
                    }
                    try? FileManager.default.removeItem(at: directory)
                    return (false, false, false, "removal")
                }
            }
            var next = range.lowerBound
            func add() {
                let url = URL(string: "\(base)/\(prefix)/\(next)")!
                next += 1
                group.addTask {
                    do {
                        let response = try await loader.load(AssetRequest(url: url))
                        let body = try await loader.data(for: response)
                        var stored = false
                        if case .cacheEntry = response.body { stored = true }
                        return (body == expected, stored, response.storeFailure != nil, nil)
                    } catch {
                        return (false, false, false, "\(url): \(error)")
                    }
                }
            }
            while next < min(range.lowerBound + 8, range.upperBound) { add() }
            while let (correct, stored, storeFailed, error) = await group.next() {
                if error == "removal" { continue }
                counts["loaded"]! += 1
                if correct { counts["correct"]! += 1 }
                if stored { counts["stored"]! += 1 }
                if storeFailed { counts["storeFailures"]! += 1 }
                if let error { counts["failed"]! += 1; errors.append(error) }
                if next < range.upperBound { add() }
                if counts["loaded"]! == range.count { group.cancelAll() }
            }
        }
        for i in range { loadedKeys.append(AssetLoader.defaultCacheKey(for: "\(base)/\(prefix)/\(i)")) }
        var result: [String: Any] = counts
        result["errors"] = Array(errors.prefix(5))
        result["cacheFailedStores"] = cache.statistics.failedStores
        return result
    }

    while let line = readLine() {
        let words = line.split(separator: " ").map(String.init)
        guard let command = words.first else { continue }
        switch command {
        case "load" where words.count == 4:
            reply(await load(words[1], Int(words[2])!..<Int(words[3])!, removing: false))
        case "load-removing" where words.count == 4:
            reply(await load(words[1], Int(words[2])!..<Int(words[3])!, removing: true))
        case "check":
            var whole = 0, absent = 0, torn = 0
            for key in loadedKeys {
                switch try cache.data(forKey: key) {
                case nil: absent += 1
                case let data? where data == expected: whole += 1
                default: torn += 1
                }
            }
            reply(["whole": whole, "absent": absent, "torn": torn])
        case "fill" where words.count == 3:
            let fd = open(words[1], O_WRONLY | O_CREAT | O_TRUNC, 0o644)
            var written = 0
            let zeros = [UInt8](repeating: 0, count: 64 * 1024)
            while fd >= 0 && written < Int(words[2])! {
                let n = write(fd, zeros, min(zeros.count, Int(words[2])! - written))
                if n <= 0 { break }
                written += n
            }
            close(fd)
            reply(["filled": written])
        case "rm" where words.count == 2:
            try? FileManager.default.removeItem(atPath: words[1])
            reply(["removed": words[1]])
        case "sh":
            let shell = try ChildProcess("/bin/sh", ["-c", String(line.dropFirst(3))], stdout: .null, stderr: .inherit)
            reply(["status": Int(shell.waitUntilExit().status)])
        case "hold" where words.count == 2:
            var limit = rlimit()
            getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
            while true {
                let fd = Glibc.open("/dev/null", O_RDONLY | O_CLOEXEC)
                if fd < 0 { break }
                held.append(fd)
            }
            for _ in 0..<min(Int(words[1])!, held.count) { close(held.removeLast()) }
            reply(["held": held.count, "limit": Int(limit.rlim_cur)])
        case "release":
            for fd in held { close(fd) }
            reply(["released": held.count])
            held = []
        case "stream" where words.count == 2:
            startMeasuring()
            do {
                let response = try await loader.load(AssetRequest(url: URL(string: base + words[1])!, kind: .video))
                var stored = false
                if case .cacheEntry = response.body { stored = true }
                reply([
                    "outcome": "\(response.outcome)", "size": Int(response.size), "stored": stored,
                    "peakGrowth": (ProcessMemory.value("VmHWM") ?? -1) - residentAtStart,
                ])
            } catch {
                reply(["error": "\(error)"])
            }
        case "serve" where words.count == 2:
            let origin = try await TestOrigin.start()
            origin.setRoute("/huge", .response(TestResponse(body: .generated(length: Int(words[1])!))))
            served = origin
            startMeasuring()
            reply(["port": origin.port])
        case "peak":
            reply(["peakGrowth": (ProcessMemory.value("VmHWM") ?? -1) - residentAtStart])
        case "quit":
            await served?.stop()
            try await loader.shutdown()
            cache.close()
            reply(["quit": true])
            exit(0)
        default:
            reply(["error": "unknown command: \(line)"])
        }
    }
    try await loader.shutdown()
} catch {
    FileHandle.standardError.write(Data("LoaderWorker: \(error)\n".utf8))
    exit(1)
}
