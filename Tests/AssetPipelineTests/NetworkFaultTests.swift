import AssetLoading
import AssetStorage
import AssetTestSupport
import Foundation
import Testing
@testable import AssetPipeline

/// Every network fault through every loader path: each ends in a typed error or a correct retry,
/// stores nothing partial and leaves no connection open.
@Suite("Network faults through every loader path")
struct NetworkFaultTests {
    /// What each fault must end in, per path.
    static func expected(_ fault: NetworkFault, _ path: LoaderPath) -> FaultOutcome {
        let video = path == .video
        switch fault {
        case .resetMidBody, .shortBody:
            return .failed(video ? "video.truncated" : path == .prefetch ? "prefetch.truncated" : "truncated")
        case .stallMidBody, .trickle:
            return .failed(video ? "video.timeout" : path == .prefetch ? "prefetch.timeout" : "timeout")
        case .brokenChunkedFraming, .oversizedHead:
            return .failed(video ? "video.invalidResponse" : path == .prefetch ? "prefetch.invalid_response" : "invalid_response")
        case .gzipBomb:
            // stored and handed over as received (never inflated by the loader); a util that
            // decodes refuses it: not an image, or a gzip stream past the parser's input limit
            switch path {
            case .get: return .succeeded(requests: 1)
            case .video: return .succeeded(requests: nil)
            case .prefetch: return .failed("prefetch.invalid")
            case .image: return .failed("codec.unsupported")
            case .lottie: return .failed("lottie.decompressedTooLarge")
            }
        case .redirectChain:
            return .failed(video ? "video.network" : path == .prefetch ? "prefetch.too_many_redirects" : "too_many_redirects")
        case .redirectLoop:
            return .failed(video ? "video.network" : path == .prefetch ? "prefetch.redirect_loop" : "redirect_loop")
        case .retryAfterAYear:
            // the loader retries after its cap instead of a year; range reads do not retry
            return video ? .failed("video.http") : .succeeded(requests: 2)
        case .wrongContentRange:
            return video ? .failed("video.invalidResponse") : .succeeded(requests: 1)
        case .partialWithoutRange:
            return video ? .succeeded(requests: 3) : .failed(path == .prefetch ? "prefetch.invalid_response" : "invalid_response")
        case .eTagChangesBetweenChunks:
            return video ? .failed("video.resourceChanged") : .succeeded(requests: 1)
        }
    }

    @Test(arguments: NetworkFault.allCases, LoaderPath.allCases)
    func endsInATypedErrorOrACorrectRetry(fault: NetworkFault, path: LoaderPath) async throws {
        let h = try await FaultHarness.start()
        let started = ContinuousClock.now
        let (outcome, url) = try await h.run(fault, through: path)
        let elapsed = ContinuousClock.now - started
        #expect(outcome.matches(Self.expected(fault, path)), "\(fault) through \(path): \(outcome)")
        if fault == .retryAfterAYear { #expect(elapsed < .seconds(30), "waited \(elapsed) for a Retry-After of a year") }
        if case .succeeded = outcome {} else if fault == .trickle || fault == .stallMidBody {
            // bounded by the timeouts: two attempts of at most the total timeout plus a read timeout
            #expect(elapsed < .seconds(90), "\(fault) through \(path) took \(elapsed)")
        }
        var kept = false
        if case .succeeded = outcome { kept = path != .video }
        try await h.expectNothingPartial(url, fault: fault, content: FaultHarness.content(for: path).bytes, kept: kept)
        let leaked = try await h.stop()
        #expect(leaked == 0, "\(leaked) connections left open by \(fault) through \(path)")
    }
}
