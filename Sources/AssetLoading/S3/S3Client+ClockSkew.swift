import AsyncHTTPClient
import NIOCore
import NIOHTTP1
import Synchronization

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension S3Client {
    /// The offset between the store's clock and ours, learned from a refusal's `Date` field.
    final class ClockSkew: Sendable {
        private let seconds = Mutex(0.0)

        /// Seconds to add to the local clock; 0 until a refusal taught otherwise.
        var offset: Double { self.seconds.withLock { $0 } }

        func learn(_ offset: Double) { self.seconds.withLock { $0 = offset } }
    }

    /// S3's codes for a request signed at a time the store does not accept.
    static let skewCodes: Set<String> = ["RequestTimeTooSkewed", "RequestExpired", "RequestInTheFuture"]
    /// S3's codes for a token that is not (or no longer) good: never the clock's, whatever the
    /// store's `Date` says (a token expires by the store's clock, so signing again cannot help).
    static let tokenCodes: Set<String> = ["ExpiredToken", "InvalidToken", "TokenRefreshRequired"]
    /// How far the store's `Date` must be from the clock before another 401 or 403 (a signature
    /// error, a `HEAD`'s bodiless refusal) is put down to it, as the AWS SDK for Java does.
    static let skewThreshold: Double = 4 * 60

    /// ``exchange(_:_:query:headers:body:deadline:)`` answering a status under 400 (or one `passing`
    /// lets through) and throwing the typed failure of the others; a refusal for a clock that is off
    /// is signed again once by the store's `Date` (``Configuration-swift.struct/correctsClockSkew``).
    func checkedExchange(
        _ method: HTTPMethod, _ location: S3Location, query: [(String, String)] = [], headers: HTTPHeaders = [:],
        body: [UInt8]? = nil, deadline: NIODeadline, passing: (HTTPResponseStatus) -> Bool = { _ in false }
    ) async throws(LoaderError) -> HTTPClientResponse {
        var corrected = false
        while true {
            let signedAt = self.configuration.signingDate
            let response = try await self.exchange(method, location, query: query, headers: headers, body: body, deadline: deadline)
            // the moment the head arrived, the nearest to the store's `Date`: reading the refusal's
            // body below can wait on a loaded machine
            let received = self.configuration.clock.now
            if response.status.code < 400 || passing(response.status) { return response }
            let error = await self.failure(response, method: method, location: location)
            if !corrected, self.configuration.correctsClockSkew,
                let offset = Self.clockOffset(
                    status: Int(response.status.code), code: error.s3Code, dateField: response.headers.first(name: "Date"),
                    now: received, learned: self.configuration.skew.offset)
            {
                self.logger.debug("s3 clock skew corrected", metadata: ["offset": "\(Int(offset)) s", "code": "\(error.s3Code ?? "")"])
                self.configuration.skew.learn(offset)
                corrected = true
                continue
            }
            throw self.namingAnExpiredToken(error, signedAt: signedAt)
        }
    }

    /// The offset to learn from a refusal with `status`, S3 code `code` and `Date` field
    /// `dateField`, or nil when the refusal is not about the clock (a token's refusal never is) or
    /// that offset is already learned.
    static func clockOffset(status: Int, code: String?, dateField: String?, now: Date, learned: Double) -> Double? {
        guard status == 400 || status == 401 || status == 403, let dateField,
            let serverDate = HTTPDate.parse(dateField, now: now)
        else { return nil }
        let offset = serverDate.timeIntervalSince(now)
        if let code, tokenCodes.contains(code) { return nil }
        let named = code.map(skewCodes.contains) ?? false
        guard named || (status != 400 && abs(offset - learned) > skewThreshold), abs(offset - learned) >= 1 else { return nil }
        return offset
    }
}
