import Foundation

/// The ways an origin misbehaves that the loader paths are tested against, each installed as a
/// ``ChaosOrigin`` handler around the content it would otherwise serve.
///
/// A fault answers `Range` requests with `206` (as a range-capable origin does) and others with
/// `200`, with an `ETag`, `Cache-Control: max-age=3600` and `Accept-Ranges: bytes`, except where the
/// fault is about exactly that.
public enum NetworkFault: String, CaseIterable, Sendable, CustomStringConvertible {
    /// The head and half the body, then a TCP reset.
    case resetMidBody
    /// The head and half the body, then nothing (until the client gives up: its read timeout).
    case stallMidBody
    /// The head announces the whole body; half of it comes, then the connection closes.
    case shortBody
    /// Chunked transfer coding that breaks after the first chunk (a chunk size that is not hex).
    case brokenChunkedFraming
    /// `Content-Encoding: gzip` over a 1 MB body that inflates to 1 GiB (``GzipBomb``).
    case gzipBomb
    /// About 100 KB of header fields before the body.
    case oversizedHead
    /// 50 redirects before the content.
    case redirectChain
    /// A redirect back to where the chain started.
    case redirectLoop
    /// The body one byte at a time, a byte per ``Timing/trickleInterval`` (one second by default).
    case trickle
    /// A `503` with `Retry-After` of a year, then the content.
    case retryAfterAYear
    /// `206` with a `Content-Range` one byte off the range asked for.
    case wrongContentRange
    /// `206` (the whole body, `Content-Range: bytes 0-N/N+1`) to a request without `Range`.
    case partialWithoutRange
    /// Every request sees a new version (a new `ETag`, other bytes), `If-Range` or not.
    case eTagChangesBetweenChunks

    public var description: String { rawValue }

    /// The pace of the slow faults.
    public struct Timing: Sendable {
        /// The gap between two bytes of ``NetworkFault/trickle``. Default one second.
        public var trickleInterval: Duration

        public init(trickleInterval: Duration = .seconds(1)) {
            self.trickleInterval = trickleInterval
        }
    }

    /// The number of redirects of ``redirectChain``.
    public static let redirectChainLength = 50
    /// The size of the header fields of ``oversizedHead``.
    public static let oversizedHeadBytes = 100_000

    /// Makes `path` of `origin` serve `content` through this fault.
    public func install(on origin: ChaosOrigin, path: String, content: [UInt8], contentType: String, timing: Timing = Timing()) {
        let fault = self
        origin.setHandler(path) { request in
            fault.answer(request, path: path, content: content, contentType: contentType, timing: timing)
        }
    }

    /// The bytes of version `version` of `content` (``eTagChangesBetweenChunks``): each byte XORed
    /// with the version number, so that two versions differ everywhere.
    public static func version(_ version: Int, of content: [UInt8]) -> [UInt8] {
        let mask = UInt8(truncatingIfNeeded: version)
        return content.map { $0 ^ mask }
    }

    // MARK: answers

    private func answer(_ request: ChaosRequest, path: String, content: [UInt8], contentType: String, timing: Timing) -> ChaosResponse {
        switch self {
        case .resetMidBody, .stallMidBody, .shortBody:
            let (status, headers, body) = Self.proper(request, content: content, contentType: contentType)
            let end: ChaosStep = self == .resetMidBody ? .reset : self == .stallMidBody ? .stall : .close
            return ChaosResponse(steps: [
                .write(ChaosResponse.head(status: status, headers: headers + [("Content-Length", String(body.count))])),
                .write(Array(body[..<(body.count / 2)])), end,
            ])
        case .brokenChunkedFraming:
            let (status, headers, body) = Self.proper(request, content: content, contentType: contentType)
            let half = Array(body[..<(body.count / 2)])
            let chunk = Array(String(half.count, radix: 16).utf8) + [13, 10] + half + [13, 10]
            return ChaosResponse(steps: [
                .write(ChaosResponse.head(status: status, headers: headers + [("Transfer-Encoding", "chunked")])),
                .write(chunk + Array("zz\r\nthis is not a chunk\r\n".utf8)), .stall,
            ])
        case .gzipBomb:
            let (status, headers, body) = Self.proper(request, content: GzipBomb.oneGigabyte, contentType: contentType)
            return .complete(status: status, headers: headers + [("Content-Encoding", "gzip")], body: body)
        case .oversizedHead:
            let (status, headers, body) = Self.proper(request, content: content, contentType: contentType)
            let value = String(repeating: "x", count: 100)
            let filler = (0..<(Self.oversizedHeadBytes / 115)).map { (String(format: "X-Filler-%04d", $0), value) }
            return .complete(status: status, headers: headers + filler, body: body)
        case .redirectChain:
            let hop = request.query.flatMap { $0.hasPrefix("hop=") ? Int($0.dropFirst(4)) : nil } ?? 0
            guard hop >= Self.redirectChainLength else {
                return .complete(status: 302, headers: [("Location", "\(path)?hop=\(hop + 1)")])
            }
            let (status, headers, body) = Self.proper(request, content: content, contentType: contentType)
            return .complete(status: status, headers: headers, body: body)
        case .redirectLoop:
            return .complete(status: 302, headers: [("Location", request.query == nil ? "\(path)?loop=1" : path)])
        case .trickle:
            let (status, headers, body) = Self.proper(request, content: content, contentType: contentType)
            return ChaosResponse(steps: [
                .write(ChaosResponse.head(status: status, headers: headers + [("Content-Length", String(body.count))])),
                .trickle(body, every: timing.trickleInterval),
            ])
        case .retryAfterAYear:
            guard request.sequenceNumber > 1 else {
                return .complete(status: 503, headers: [("Retry-After", "31536000")])
            }
            let (status, headers, body) = Self.proper(request, content: content, contentType: contentType)
            return .complete(status: status, headers: headers, body: body)
        case .wrongContentRange:
            guard let range = request.byteRange(length: content.count) else {
                let (status, headers, body) = Self.proper(request, content: content, contentType: contentType)
                return .complete(status: status, headers: headers, body: body)
            }
            let shifted = (range.lowerBound + 1)..<min(range.upperBound + 1, content.count)
            return .complete(
                status: 206,
                headers: Self.fields(contentType) + [("Content-Range", "bytes \(shifted.lowerBound)-\(shifted.upperBound)/\(content.count)")],
                body: shifted.isEmpty ? [] : Array(content[shifted]))
        case .partialWithoutRange:
            guard request.byteRange(length: content.count) == nil else {
                let (status, headers, body) = Self.proper(request, content: content, contentType: contentType)
                return .complete(status: status, headers: headers, body: body)
            }
            return .complete(
                status: 206, headers: Self.fields(contentType) + [("Content-Range", "bytes 0-\(content.count - 1)/\(content.count)")],
                body: content)
        case .eTagChangesBetweenChunks:
            let version = request.sequenceNumber
            var headers = Self.fields(contentType, eTag: "\"v\(version)\"")
            guard let range = request.byteRange(length: content.count) else {
                return .complete(status: 200, headers: headers, body: content)
            }
            headers.append(("Content-Range", "bytes \(range.lowerBound)-\(range.upperBound - 1)/\(content.count)"))
            return .complete(status: 206, headers: headers, body: Array(Self.version(version, of: content)[range]))
        }
    }

    /// What a well-behaved origin answers: `206` with the range asked for, else `200` with all.
    static func proper(_ request: ChaosRequest, content: [UInt8], contentType: String) -> (Int, [(String, String)], [UInt8]) {
        guard let range = request.byteRange(length: content.count) else { return (200, fields(contentType), content) }
        return (206, fields(contentType) + [("Content-Range", "bytes \(range.lowerBound)-\(range.upperBound - 1)/\(content.count)")],
                Array(content[range]))
    }

    static func fields(_ contentType: String, eTag: String = "\"c1\"") -> [(String, String)] {
        [("Content-Type", contentType), ("ETag", eTag), ("Cache-Control", "max-age=3600"), ("Accept-Ranges", "bytes")]
    }
}
