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
                _ = try await images.decode(data, options: .init(keepInMemory: false))
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

    /// Fetches the first ``Configuration/videoPrefix`` bytes of a video into the chunk store through
    /// ``VideoUtil`` (instead of the whole body into the disk cache) and checks that they start like a
    /// known container; one that does not is dropped from the chunk store.
    func prefetchVideo(_ url: String, line: Int) async throws -> PrefetchResult {
        let statistics = try await videos.prefetch(address: url, head: configuration.videoPrefix, tail: 0)
        let head = try await videos.read(address: url, byteRange: .bounded(0..<min(16, statistics.totalLength ?? 16))).data
        do {
            try Self.checkVideoContainer(Array(head))
        } catch let failure as PrefetchResult.Failure {
            try await videos.removeCached(address: url)
            return .failed(url: url, line: line, kind: .video, status: nil, bytesDownloaded: statistics.bytesFromOrigin, failure)
        }
        return PrefetchResult(
            url: url, line: line, outcome: statistics.originRequests > 0 ? "downloaded" : "cached", kind: .video,
            status: nil, bytes: statistics.bytes, bytesDownloaded: statistics.bytesFromOrigin, stored: true, failure: nil)
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
