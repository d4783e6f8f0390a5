@testable import AssetPipeline
import AssetStorage
import Testing

@Suite("Prefetch lists: lines, kinds, duplicates")
struct PrefetchLineTests {
    @Test func linesAreItemsCommentsOrMalformed() {
        #expect(PrefetchLine.parse("") == nil)
        #expect(PrefetchLine.parse("   \t ") == nil)
        #expect(PrefetchLine.parse("# a comment") == nil)
        #expect(PrefetchLine.parse("  # indented comment") == nil)
        #expect(PrefetchLine.parse("https://cdn.example.org/a.png") == .item(url: "https://cdn.example.org/a.png", kind: nil))
        #expect(PrefetchLine.parse("https://cdn.example.org/a.png\r") == .item(url: "https://cdn.example.org/a.png", kind: nil))
        #expect(PrefetchLine.parse("http://h/x.json\tlottie") == .item(url: "http://h/x.json", kind: .lottie))
        #expect(PrefetchLine.parse("http://h/x.mp4\t VIDEO ") == .item(url: "http://h/x.mp4", kind: .video))
        #expect(PrefetchLine.parse("http://h/x\t") == .item(url: "http://h/x", kind: nil))
        guard case .malformed(_, let reason) = PrefetchLine.parse("http://h/x\taudio") else {
            Issue.record("an unknown kind is malformed")
            return
        }
        #expect(reason.contains("unknown kind 'audio'"))
        for line in ["not a url", "ftp://h/file", "file:///etc/passwd", "http:///nohost", "http://h/a b", "mailto:a@b.c",
                     "https://cdn.s://cd\u{0B}n.example.org/a", "http://h/a\u{0}b", "http://h/a\u{7F}",
                     "http://h/a\u{2003}b", "http://h/a\u{85}b", "http://h/\u{A0}a"] {
            guard case .malformed = PrefetchLine.parse(line) else {
                Issue.record("'\(line)' should be malformed")
                continue
            }
        }
    }

    @Test func whitespaceIsTrimmedWithoutFoundationAndOriginsAreCutFromKeys() {
        #expect(PrefetchLine.trimmingWhitespace(" \t http://h/a \r\n") == "http://h/a")
        #expect(PrefetchLine.trimmingWhitespace("\u{00A0}http://h/a\u{2003}") == "http://h/a")
        #expect(PrefetchLine.trimmingWhitespace(" \t ").isEmpty)
        #expect(PrefetchLine.trimmingWhitespace("http://h/a") == "http://h/a")
        #expect(PrefetchLine.trimmingWhitespace("http://h/a\u{2003}") == "http://h/a")
        #expect(PrefetchLine.parse("\u{00A0}http://h/x.json\t lottie\u{00A0}") == .item(url: "http://h/x.json", kind: .lottie))
        #expect(KindSniffer.guess(contentType: " Image/PNG ; charset=x", prefix: [], url: "http://h/x") == .image)
        #expect(Prefetcher.origin(ofKey: "http://h:8080/a/b?q") == "http://h:8080")
        #expect(Prefetcher.origin(ofKey: "https://h?q=1") == "https://h")
        #expect(Prefetcher.origin(ofKey: "https://h#f") == "https://h")
        #expect(Prefetcher.origin(ofKey: "https://h") == "https://h")
        #expect(Prefetcher.origin(ofKey: "custom-key:no-scheme") == "custom-key:no-scheme")
        #expect(Prefetcher.origin(ofKey: "plain") == "plain")
    }

    @Test func kindsAreGuessedFromBytesThenTypeThenExtension() {
        let png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0]
        let jpeg: [UInt8] = [0xFF, 0xD8, 0xFF, 0xE0]
        let mp4: [UInt8] = [0, 0, 0, 0x18] + Array("ftypmp42".utf8)
        let webm: [UInt8] = [0x1A, 0x45, 0xDF, 0xA3, 0x9F]
        let zip: [UInt8] = [0x50, 0x4B, 0x03, 0x04]
        let lottie = Array(#"{"v":"5.7.4","fr":30,"ip":0,"op":60,"w":100,"h":100,"layers":[]}"#.utf8)
        let layersFirst = Array(#"{"assets":[],"layers":[{"ddd":0,"ind":1,"ty":4,"ks":{}}]}"#.utf8)
        #expect(KindSniffer.guess(contentType: "application/octet-stream", prefix: png, url: "http://h/x") == .image)
        #expect(KindSniffer.guess(contentType: nil, prefix: jpeg, url: "http://h/x.bin") == .image)
        #expect(KindSniffer.guess(contentType: "application/octet-stream", prefix: mp4, url: "http://h/x") == .video)
        #expect(KindSniffer.guess(contentType: nil, prefix: webm, url: "http://h/x") == .video)
        #expect(KindSniffer.guess(contentType: "application/json", prefix: lottie, url: "http://h/a.json") == .lottie)
        #expect(KindSniffer.guess(contentType: "application/json", prefix: layersFirst, url: "http://h/a") == .lottie)
        #expect(KindSniffer.guess(contentType: "application/json", prefix: Array(#"{"users":[1,2]}"#.utf8), url: "http://h/a.json") == .raw)
        #expect(KindSniffer.guess(contentType: "application/zip", prefix: zip, url: "http://h/a.lottie?sig=1") == .lottie)
        #expect(KindSniffer.guess(contentType: "application/zip", prefix: zip, url: "http://h/a.zip") == .raw)
        #expect(KindSniffer.guess(contentType: "image/webp", prefix: [], url: "http://h/a") == .image)
        #expect(KindSniffer.guess(contentType: "video/mp4", prefix: [], url: "http://h/a") == .video)
        #expect(KindSniffer.guess(contentType: "application/x-Lottie+json", prefix: [], url: "http://h/a") == .lottie)
        #expect(KindSniffer.guess(contentType: "application/lottie", prefix: [], url: "http://h/a") == .lottie)
        #expect(KindSniffer.guess(contentType: "application/lotti", prefix: [], url: "http://h/a") == .raw)
        #expect(KindSniffer.contains("aab".utf8, "ab".utf8) && !KindSniffer.contains("ab".utf8, "abc".utf8) && KindSniffer.contains("x".utf8, "".utf8))
        #expect(KindSniffer.guess(contentType: "text/plain", prefix: Array("hello".utf8), url: "http://h/a.txt") == .raw)
    }

    @Test func fileExtensionsSuggestAKindBeforeAnyByteArrives() {
        #expect(KindSniffer.kind(ofPath: "https://h/a/b.PNG?x=1") == .image)
        #expect(KindSniffer.kind(ofPath: "https://h/anim.json#frag") == .lottie)
        #expect(KindSniffer.kind(ofPath: "https://h/clip.webm") == .video)
        #expect(KindSniffer.kind(ofPath: "https://h/v1.2/file") == nil)
        #expect(KindSniffer.kind(ofPath: "https://h/notes.txt") == nil)
        #expect(KindSniffer.kind(ofPath: "https://h/") == nil)
        #expect(KindSniffer.kind(ofPath: "https://h/a?x=b.png") == nil)
        #expect(KindSniffer.kind(ofPath: "https://h/a.jpeg#x?y.json") == .image)
        #expect(KindSniffer.kind(ofPath: "https://h/a.m3u8?x#y") == .video)
    }

    @Test func theDuplicateFilterIsExactWithinItsWindowAndBounded() {
        let filter = DuplicateFilter(capacity: 1_000)
        #expect(!filter.isDuplicate("a"))
        #expect(filter.isDuplicate("a"))
        #expect(!filter.isDuplicate("b"))
        for i in 0..<998 { #expect(!filter.isDuplicate("k\(i)")) }
        // Full: the next new key starts a new window, so "a" is new again (the cache answers it).
        #expect(!filter.isDuplicate("c"))
        #expect(!filter.isDuplicate("a"))
        #expect(filter.isDuplicate("c"))
    }

    @Test func videoContainersAreRecognizedByTheirFirstBytes() throws {
        try Prefetcher.checkVideoContainer([0, 0, 0, 0x20] + Array("ftypisom".utf8))
        try Prefetcher.checkVideoContainer([0x1A, 0x45, 0xDF, 0xA3])
        try Prefetcher.checkVideoContainer(Array("OggS".utf8) + [0, 2])
        #expect(throws: PrefetchResult.Failure.self) { try Prefetcher.checkVideoContainer(Array("<html>".utf8)) }
        #expect(throws: PrefetchResult.Failure.self) { try Prefetcher.checkVideoContainer([]) }
    }

    @Test func hostSlotsPassToWaitersAndCloseReleasesEveryone() async {
        let limiter = HostLimiter(limit: 1)
        #expect(await limiter.acquire("a"))
        #expect(await limiter.acquire("b"))  // another host is not held up
        async let second = limiter.acquire("a")
        limiter.release("a")  // hands the slot to the waiter
        #expect(await second)
        limiter.close()
        #expect(await limiter.acquire("c") == false)
    }
}
