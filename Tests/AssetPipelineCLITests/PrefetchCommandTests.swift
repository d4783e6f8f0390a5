import AssetLoading
import AssetStorage
import AssetTestSupport
import Foundation
import Testing

@Suite("assetpipe prefetch")
struct PrefetchCommandTests {
    func temporaryDirectory() throws -> URL { try CLIFixtures.temporaryDirectory("prefetch") }

    func write(_ lines: [String], to url: URL) throws {
        try Data((lines.joined(separator: "\n") + "\n").utf8).write(to: url)
    }

    func report(_ url: URL) throws -> (summary: [String: Any], items: [[String: Any]]) {
        let object = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as? [String: Any])
        return (try #require(object["summary"] as? [String: Any]), try #require(object["items"] as? [[String: Any]]))
    }

    func item(_ items: [[String: Any]], _ suffix: String) throws -> [String: Any] {
        try #require(items.first { ($0["url"] as? String)?.hasSuffix(suffix) == true }, "no item for \(suffix)")
    }

    @Test func aMixedListIsFetchedValidatedAndReported() async throws {
        let origin = try await TestOrigin.start()
        defer { Task { await origin.stop() } }
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let fresh = ("Cache-Control", "max-age=3600")
        origin.setRoute("/img/a.png", .resource(TestResource(
            content: .bytes(try CLIFixtures.bytes("png/pngsuite/basn6a08.png")), eTag: "\"a\"", headers: [fresh, ("Content-Type", "image/png")])))
        origin.setRoute("/img/b", .resource(TestResource(  // no extension, a vague type: the bytes say JPEG
            content: .bytes(try CLIFixtures.bytes("jpeg/libjpeg-turbo/testorig.jpg")), headers: [fresh, ("Content-Type", "application/octet-stream")])))
        origin.setRoute("/anim/x.json", .resource(TestResource(
            content: .bytes(try CLIFixtures.bytes("lottie/lottie-ios/9squares_AlBoardman.json")), headers: [fresh, ("Content-Type", "application/json")])))
        origin.setRoute("/notes.txt", .resource(TestResource(content: .bytes(Array("hello\n".utf8)), headers: [fresh, ("Content-Type", "text/plain")])))
        origin.setRoute("/img/corrupt.png", .resource(TestResource(
            content: .bytes(try CLIFixtures.bytes("png/libpng-testpngs/crashers/badcrc.png")), headers: [fresh, ("Content-Type", "image/png")])))
        origin.setRoute("/flaky", .sequence([
            TestResponse(status: 500),
            TestResponse(status: 200, headers: [fresh], body: .bytes(Array("second time lucky".utf8))),
        ]))
        let mp4 = try CLIFixtures.bytes("video/sample.mp4")
        origin.setRoute("/v/clip.mp4", .resource(TestResource(content: .bytes(mp4), eTag: "\"m\"", headers: [fresh, ("Content-Type", "video/mp4")])))
        origin.setRoute("/v/other", .resource(TestResource(
            content: .bytes(try CLIFixtures.bytes("video/bbb_480p_vp9_opus_1second.webm")), headers: [fresh])))
        let base = origin.baseURL
        let list = dir.appendingPathComponent("urls.txt")
        try write([
            "# images, animations and the rest",
            "\(base)/img/a.png\timage",
            "\(base)/img/b",
            "",
            "\(base)/anim/x.json",
            "\(base)/notes.txt",
            "\(base)/v/clip.mp4\tvideo",
            "\(base)/v/other",
            "\(base)/img/corrupt.png",
            "\(base)/flaky",
            "\(base)/missing",
            "\(base)/img/a.png",
            "not a url",
            "ftp://example.org/file.bin",
            "\(base)/notes.txt\taudio",
        ], to: list)
        let reportFile = dir.appendingPathComponent("report.json")
        let cacheDir = dir.appendingPathComponent("cache").path
        let arguments = [
            "prefetch", list.path, "--validate", "--cache-dir", cacheDir, "--report", reportFile.path,
            // Every answer comes at once; the timeout only leaves room for a loaded machine, where the
            // origin in this process can wait seconds for a thread (timeouts have a test of their own).
            "--retries", "1", "--timeout", "60", "--concurrency", "4", "--quiet",
        ]

        let first = try await assetpipeAsync(arguments)
        #expect(first.status == 1, "\(first.stderr)")
        let (summary, items) = try report(reportFile)
        #expect(summary["total"] as? Int == 12)
        #expect(summary["downloaded"] as? Int == 7)
        #expect(summary["failed"] as? Int == 5)
        #expect(summary["duplicates"] as? Int == 1)
        #expect(summary["interrupted"] as? Bool == false)
        #expect(items.count == 12)
        #expect(try item(items, "/img/a.png")["kind"] as? String == "image")
        #expect(try item(items, "/img/b")["kind"] as? String == "image")
        #expect(try item(items, "/anim/x.json")["kind"] as? String == "lottie")
        #expect(try item(items, "/notes.txt")["kind"] as? String == "raw")
        #expect(try item(items, "/flaky")["outcome"] as? String == "downloaded")
        // A video is cached whole, named or recognized by its first bytes (no --video-prefix).
        let clip = try item(items, "/v/clip.mp4")
        #expect(clip["kind"] as? String == "video")
        #expect(clip["bytesDownloaded"] as? Int == mp4.count)
        #expect(try item(items, "/v/other")["kind"] as? String == "video")
        #expect(origin.requestCount(path: "/flaky") == 2)
        let corrupt = try item(items, "/img/corrupt.png")
        #expect(corrupt["outcome"] as? String == "failed")
        #expect((corrupt["error"] as? [String: Any])?["code"] as? String == "invalid")
        let missing = try item(items, "/missing")
        #expect(missing["status"] as? Int == 404)
        let malformed = items.filter { ($0["error"] as? [String: Any])?["code"] as? String == "malformed" }
        #expect(malformed.count == 3)
        #expect(malformed.contains { ($0["error"] as? [String: Any])?["message"] as? String == "unsupported scheme 'ftp' (http, https and s3 only)" })
        #expect(first.stderr.contains("7 downloaded"))

        // The cache holds the good bodies and not the corrupt one.
        let disk = try DiskCache(configuration: .init(directory: URL(fileURLWithPath: cacheDir), maxBytes: .max, maxCount: .max))
        #expect(try disk.data(forKey: AssetLoader.defaultCacheKey(for: "\(base)/img/a.png")) == Data(try CLIFixtures.bytes("png/pngsuite/basn6a08.png")))
        #expect(disk.contains(key: AssetLoader.defaultCacheKey(for: "\(base)/anim/x.json")))
        #expect(!disk.contains(key: AssetLoader.defaultCacheKey(for: "\(base)/img/corrupt.png")))
        disk.close()

        // Again: everything fresh comes from the cache with no request; the failures fail again.
        let requestsBefore = origin.totalRequestCount
        let second = try await assetpipeAsync(arguments)
        #expect(second.status == 1)
        let again = try report(reportFile)
        #expect(again.summary["cached"] as? Int == 7)
        #expect(again.summary["downloaded"] as? Int == 0)
        #expect(again.summary["failed"] as? Int == 5)
        // corrupt.png (fetched and rejected again) and /missing.
        #expect(origin.totalRequestCount - requestsBefore == 2)
    }

    @Test(.timeLimit(.minutes(1)))
    func anOriginThatNeverAnswersTimesOutAndIsRetried() async throws {
        let origin = try await TestOrigin.start()
        defer { Task { await origin.stop() } }
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        // The head is held until the origin stops, after the test.
        origin.setRoute("/slow", .response(TestResponse(status: 200, body: .text("late"), gate: TestGate())))
        let list = dir.appendingPathComponent("urls.txt")
        try write([origin.url("/slow")], to: list)
        let reportFile = dir.appendingPathComponent("report.json")
        let run = try await assetpipeAsync([
            "prefetch", list.path, "--cache-dir", dir.appendingPathComponent("cache").path, "--report", reportFile.path,
            "--retries", "1", "--timeout", "1", "--quiet",
        ])
        #expect(run.status == 1, "\(run.stderr)")
        let (summary, items) = try report(reportFile)
        #expect(summary["failed"] as? Int == 1)
        let slow = try item(items, "/slow")
        #expect(slow["outcome"] as? String == "failed")
        #expect((slow["error"] as? [String: Any])?["code"] as? String == "timeout")
        // Both attempts came; on a loaded machine the handler of this process may record the second
        // one after the prefetch has given up on it (the test's time limit bounds the wait).
        await origin.waitForRequests(path: "/slow", count: 2)
        #expect(origin.requestCount(path: "/slow") == 2)
    }

    @Test func standardInputAndJSONOutput() async throws {
        let origin = try await TestOrigin.start()
        defer { Task { await origin.stop() } }
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        origin.setRoute("/one", .response(.ok("1", headers: [("Cache-Control", "max-age=60")])))
        origin.setRoute("/two", .response(.ok("22", headers: [("Cache-Control", "no-store")])))
        let list = Data("\(origin.url("/one"))\n\(origin.url("/two"))\r\n".utf8)
        let command = try RunningCommand(["prefetch", "-", "--json", "--cache-dir", dir.path], stdin: list)
        let result = await command.wait()
        #expect(result.status == 0, "\(result.stderr)")
        let object = try jsonObject(result.stdout)
        let summary = try #require(object["summary"] as? [String: Any])
        #expect(summary["total"] as? Int == 2)
        #expect(summary["downloaded"] as? Int == 2)
        #expect(summary["bytesDownloaded"] as? Int == 3)
        let items = try #require(object["items"] as? [[String: Any]])
        #expect(try item(items, "/two")["stored"] as? Bool == false)
        #expect(try item(items, "/one")["stored"] as? Bool == true)
    }

    @Test func badUsageExitsTwo() async throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let missing = try await assetpipeAsync(["prefetch", dir.appendingPathComponent("nope.txt").path, "--cache-dir", dir.path])
        #expect(missing.status == 2)
        #expect(missing.stderr.contains("cannot read the list"))
        #expect(try await assetpipeAsync(["prefetch", dir.path, "--cache-dir", dir.path]).status == 2)
        let list = dir.appendingPathComponent("l.txt")
        try write(["http://127.0.0.1:9/x"], to: list)
        #expect(try await assetpipeAsync(["prefetch", list.path, "--concurrency", "0"]).status == 2)
        #expect(try await assetpipeAsync(["prefetch", list.path, "--rate", "-1"]).status == 2)
        #expect(try await assetpipeAsync(["prefetch", list.path, "--strategy", "whenever"]).status == 2)
    }

    @Test func frameVariantsAreMadeOfAnimationsAndVideosAndImageVariantsOfImages() async throws {
        let origin = try await TestOrigin.start()
        defer { Task { await origin.stop() } }
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let fresh = ("Cache-Control", "max-age=3600")
        origin.setRoute("/anim/a.json", .resource(TestResource(
            content: .bytes(try CLIFixtures.bytes("lottie/lottie-docs/parenting.json")), eTag: "\"a\"", headers: [fresh])))
        origin.setRoute("/img/p.jpg", .resource(TestResource(
            content: .bytes(try CLIFixtures.bytes("jpeg/libjpeg-turbo/testorig.jpg")), eTag: "\"p\"", headers: [fresh])))
        origin.setRoute("/clip/v.mp4", .resource(TestResource(
            content: .bytes(try CLIFixtures.bytes("video/sample.mp4")), eTag: "\"v\"", headers: [fresh])))
        let list = dir.appendingPathComponent("urls.txt")
        try write([origin.url("/anim/a.json"), origin.url("/img/p.jpg"), origin.url("/clip/v.mp4")], to: list)
        let reportFile = dir.appendingPathComponent("report.json")
        let cacheDir = dir.appendingPathComponent("cache").path
        let run = try await assetpipeAsync([
            "prefetch", list.path, "--cache-dir", cacheDir, "--report", reportFile.path, "--quiet", "--timeout", "60",
            "--variant", "frame=0,w=32,format=png", "--variant", "w=24,format=webp",
        ])
        #expect(run.status == 0, "\(run.stderr)")
        let (summary, items) = try report(reportFile)
        #expect(summary["failed"] as? Int == 0)
        #expect(summary["variants"] as? Int == 3)
        #expect(try item(items, "/anim/a.json")["variants"] as? Int == 1)
        #expect(try item(items, "/img/p.jpg")["variants"] as? Int == 1)
        // a video's frame variant too (its first frame, 1080x720 scaled to 32 wide)
        #expect(try item(items, "/clip/v.mp4")["variants"] as? Int == 1)
        let videoFrame = try await assetpipeAsync([
            "convert", origin.url("/clip/v.mp4"), "--cache-dir", cacheDir, "--transform", "frame=0,w=32,format=png",
            "-o", dir.appendingPathComponent("v.png").path, "--json",
        ])
        #expect(videoFrame.status == 0, "\(videoFrame.stderr)")
        let videoJSON = try #require(try JSONSerialization.jsonObject(with: Data(videoFrame.stdout.utf8)) as? [String: Any])
        #expect(videoJSON["origin"] as? String == "disk")
        #expect((videoJSON["width"] as? Int, videoJSON["height"] as? Int) == (32, 21))
        // the frame variant is in the cache: the same variant asked for again is a disk hit
        let convert = try await assetpipeAsync([
            "convert", origin.url("/anim/a.json"), "--cache-dir", cacheDir, "--transform", "frame=0,w=32",
            "-o", dir.appendingPathComponent("f.png").path, "--json",
        ])
        #expect(convert.status == 0, "\(convert.stderr)")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(convert.stdout.utf8)) as? [String: Any])
        #expect(json["origin"] as? String == "disk")
        #expect(json["transform"] as? String == "frame=0,w=32,format=png")
        #expect((json["width"] as? Int, json["height"] as? Int) == (32, 32))
        #expect(origin.requestCount(path: "/anim/a.json") == 1)
    }

    /// SIGINT in the middle: the run stops soon, the report says so, the cache verifies clean, and
    /// running the same list again fetches only what the first run did not store.
    @Test func sigintStopsCleanlyAndARerunCompletes() async throws {
        let origin = try await TestOrigin.start()
        defer { Task { await origin.stop() } }
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let body = (0..<40_000).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        origin.setRoute("/s", .response(TestResponse(
            status: 200, headers: [("Cache-Control", "max-age=3600")],
            body: .slow(chunks: [Array(body[0..<20_000]), Array(body[20_000...])], delay: .milliseconds(20)))))
        let count = 400
        let list = dir.appendingPathComponent("urls.txt")
        try write((0..<count).map { origin.url("/s") + "?i=\($0)" }, to: list)
        let reportFile = dir.appendingPathComponent("report.json")
        let cacheDir = dir.appendingPathComponent("cache").path
        let arguments = ["prefetch", list.path, "--cache-dir", cacheDir, "--report", reportFile.path, "--concurrency", "8", "--per-host", "8"]

        let command = try RunningCommand(arguments)
        await origin.waitForRequests(path: "/s", count: 40)
        command.send(SIGINT)
        let stopped = await command.wait()
        #expect(stopped.status == 130, "\(stopped.stderr)")
        let first = try report(reportFile)
        #expect(first.summary["interrupted"] as? Bool == true)
        let firstDownloaded = try #require(first.summary["downloaded"] as? Int)
        #expect(firstDownloaded >= 1 && firstDownloaded < count)
        #expect(first.summary["failed"] as? Int == 0)
        #expect(first.items.count == firstDownloaded)

        let verify = try await assetpipeAsync(["cache", "verify", "--cache-dir", cacheDir, "--json"])
        #expect(verify.status == 0, "\(verify.stdout)")

        let requestsBefore = origin.requestCount(path: "/s")
        let rerun = try await assetpipeAsync(arguments + ["--quiet"])
        #expect(rerun.status == 0, "\(rerun.stderr)")
        let second = try report(reportFile)
        let cached = try #require(second.summary["cached"] as? Int)
        let downloaded = try #require(second.summary["downloaded"] as? Int)
        #expect(cached + downloaded == count)
        #expect(cached >= firstDownloaded)
        #expect(origin.requestCount(path: "/s") - requestsBefore == downloaded)
    }

    /// Memory stays flat in the list's length: 100,000 URLs peak within a few MiB of 5,000.
    @Test(.enabled(if: !AddressSanitizer.isActive, "peak memory is not meaningful under AddressSanitizer"))
    func memoryIsFlatInTheListLength() async throws {
        let origin = try await TestOrigin.start()
        defer { Task { await origin.stop() } }
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        origin.setRoute("/t", .response(.ok("ok", headers: [("Cache-Control", "no-store")])))

        func run(_ count: Int) async throws -> Int {
            let list = dir.appendingPathComponent("urls-\(count).txt")
            let handle = try #require(FileHandle(forWritingAtPath: list.path) ?? {
                _ = FileManager.default.createFile(atPath: list.path, contents: nil)
                return FileHandle(forWritingAtPath: list.path)
            }())
            var text = ""
            for i in 0..<count {
                text += origin.url("/t") + "?n=\(i)\n"
                if text.utf8.count > 1 << 20 { handle.write(Data(text.utf8)); text = "" }
            }
            handle.write(Data(text.utf8))
            try handle.close()
            let reportFile = dir.appendingPathComponent("report-\(count).json")
            let command = try RunningCommand([
                "prefetch", list.path, "--cache-dir", dir.appendingPathComponent("cache").path, "--quiet",
                "--concurrency", "16", "--per-host", "16", "--report", reportFile.path,
            ])
            let result = await command.wait()
            #expect(result.status == 0, "\(result.stderr)")
            let summary = try report(reportFile).summary
            #expect(summary["total"] as? Int == count)
            #expect(summary["downloaded"] as? Int == count)
            origin.resetRequestLog()
            return command.peakResidentBytes
        }

        let small = try await run(5_000)
        let large = try await run(100_000)
        #expect(small > 0)
        #expect(large < small + (16 << 20), "peak RSS \(small >> 20) MiB for 5k URLs, \(large >> 20) MiB for 100k")
    }
}
