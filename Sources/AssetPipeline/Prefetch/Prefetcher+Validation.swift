import AssetLoading
import AssetStorage
import Foundation

extension Prefetcher {
    /// Checks a fetched body by its kind; throws a ``PrefetchResult/Failure`` (code `invalid`) when it
    /// is not usable: an image must decode whole (``ImageUtil``), an animation must parse
    /// (``LottieUtil``, lenient), a video must start like a known container; raw bodies are not checked.
    /// Nothing is memoized in memory: a prefetch warms the disk, not this process.
    /// `head` is the body's first bytes when the caller already read them.
    func validate(_ response: AssetResponse, kind: AssetKind, head: [UInt8]? = nil) async throws {
        switch kind {
        case .raw:
            return
        case .image:
            let data = try await manager.loader.data(for: response)
            do {
                _ = try await images.decode(data, options: .init(keepInMemory: false), pixels: false)
            } catch let error where !(error is CancellationError) {
                throw PrefetchResult.Failure(code: "invalid", message: "not a usable image: \(error)")
            }
        case .lottie:
            let data = try await manager.loader.data(for: response)
            do {
                _ = try await animations.read(data, options: .init(keepInMemory: false))
            } catch let error where !(error is CancellationError) {
                throw PrefetchResult.Failure(code: "invalid", message: "not a usable Lottie animation: \(error)")
            }
        case .video:
            if let head {
                try Self.checkVideoContainer(head)
            } else {
                try Self.checkVideoContainer(try await firstBytes(of: response))
            }
        }
    }

    /// Fetches the first `prefix` bytes of a video through ``VideoUtil``: into the chunk store, or
    /// read from a whole copy the disk cache already holds (then nothing is fetched or stored). With
    /// ``Configuration/validate``, checks that they start like a known container; one that does not
    /// is dropped.
    func prefetchVideo(_ url: String, prefix: Int64, line: Int) async throws -> PrefetchResult {
        let stream = videos.stream(address: url, range: .bounded(0..<prefix))
        var head: [UInt8] = []
        for try await piece in stream where head.count < 16 {
            head += piece.prefix(16 - head.count)
        }
        let statistics = stream.statistics
        if configuration.validate {
            do {
                try Self.checkVideoContainer(head)
            } catch let failure as PrefetchResult.Failure {
                try await videos.removeCached(address: url)
                return .failed(
                    url: url, line: line, kind: .video, status: statistics.status, bytesDownloaded: statistics.bytesFromOrigin, failure)
            }
        }
        let outcome: LoadOutcome
        if statistics.originRequests == 0 {
            outcome = .cached
        } else {
            outcome = statistics.bytesFromOrigin > 0 && statistics.status != 304 ? .downloaded : .revalidated
        }
        var kept = statistics.bytesFromDiskCache > 0
        if !kept { kept = try await videos.cachedRecord(address: url) != nil }
        // a stored copy stands for the whole resource's 200, as the loader reports cached and
        // revalidated answers; a download reports the origin's status (206 for a range)
        let status = outcome == .downloaded ? statistics.status ?? 200 : 200
        return PrefetchResult(
            url: url, line: line, outcome: outcome.rawValue, kind: .video, status: status,
            bytes: statistics.bytes, bytesDownloaded: statistics.bytesFromOrigin, stored: kept, failure: nil)
    }

    /// Accepts the first bytes of ISO-BMFF (MP4, MOV, 3GP; a box type at offset 4), Matroska/WebM
    /// (EBML), MPEG-TS, MPEG-PS, AVI, FLV, Ogg and MP3 (ID3 or a frame sync).
    static func checkVideoContainer(_ bytes: [UInt8]) throws {
        func at(_ offset: Int, _ magic: String) -> Bool {
            let m = Array(magic.utf8)
            return bytes.count >= offset + m.count && Array(bytes[offset..<(offset + m.count)]) == m
        }
        let boxTypes = ["ftyp", "moov", "mdat", "free", "skip", "wide", "pnot", "styp", "sidx", "moof"]
        let known =
            boxTypes.contains { at(4, $0) }
            || bytes.starts(with: [0x1A, 0x45, 0xDF, 0xA3])  // EBML
            || bytes.first == 0x47  // MPEG-TS sync byte
            || bytes.starts(with: [0x00, 0x00, 0x01, 0xBA])  // MPEG-PS pack header
            || (at(0, "RIFF") && at(8, "AVI ")) || at(0, "FLV") || at(0, "OggS") || at(0, "ID3")
            || (bytes.count >= 2 && bytes[0] == 0xFF && bytes[1] & 0xE0 == 0xE0)  // MPEG audio frame sync
        guard known else {
            throw PrefetchResult.Failure(code: "invalid", message: "not a known video container (its first bytes match none)")
        }
    }
}
