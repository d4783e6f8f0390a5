import AsyncHTTPClient
import NIOHTTP1

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension S3Client {
    /// The typed error of an error answer: ``LoaderError/http(_:)`` with S3's `<Code>` as its
    /// ``LoaderError/s3Code`` and, with the `<Message>`, in the message (never the rest of the body, which for `SignatureDoesNotMatch` holds the string
    /// signed), and the `Retry-After` of a `503 SlowDown`.
    func failure(_ response: HTTPClientResponse, method: HTTPMethod, location: S3Location) async -> LoaderError {
        let status = Int(response.status.code)
        let body = try? await response.body.collect(upTo: 64 * 1024)
        let text = body.map { String(buffer: $0) } ?? ""
        let code = Self.element("Code", in: text) ?? Self.codeWithoutBody(status)
        var message = "\(method.rawValue) \(location): \(code) (\(status))"
        if let detail = Self.element("Message", in: text), !detail.isEmpty {
            message += ": \(detail)"
        }
        let retryAfter = AssetLoader.RetryPolicy.retryAfter(response.headers.first(name: "Retry-After"), now: Date())
        return LoaderError.http(status).with(message: message, retryAfter: retryAfter, s3Code: code)
    }

    /// `error` named `ExpiredToken` when the request was signed (at `signedAt`, by the corrected clock)
    /// after ``S3Credentials/expiration`` and the store's refusal does not say why: radosgw 16.2
    /// answers an expired session token `403 AccessDenied` with an empty message, and AWS answers a
    /// `HEAD` with a bare `400`. The store's own word stays in the message. Any other error, or
    /// credentials with no known expiration, is returned as it is.
    func namingAnExpiredToken(_ error: LoaderError, signedAt: Date) -> LoaderError {
        let credentials = self.configuration.credentials
        guard credentials.sessionToken != nil, let expiration = credentials.expiration, signedAt >= expiration,
            let status = error.status, Self.unexplainedRefusals.contains(status), let code = error.s3Code, code == Self.codeWithoutBody(status)
        else { return error }
        return error.with(
            message: "\(error.message); ExpiredToken: the session token expired at \(expiration.formatted(.iso8601)) (S3Credentials.expiration)",
            s3Code: "ExpiredToken")
    }

    /// The statuses of a refusal that may be an expired token: AWS's `400` (bare to a `HEAD`),
    /// radosgw's `403`, a `401`.
    static let unexplainedRefusals: Set<Int> = [400, 401, 403]

    /// A `HEAD` answer has no body: S3's code for the usual statuses.
    static func codeWithoutBody(_ status: Int) -> String {
        switch status {
        case 403: return "AccessDenied"
        case 404: return "NoSuchKey"
        case 412: return "PreconditionFailed"
        case 503: return "SlowDown"
        default: return "HTTP \(status)"
        }
    }

    /// The text of the first `<name>...</name>` in `xml`, entities for `&`, `<`, `>`, `"`, `'` decoded.
    static func element(_ name: String, in xml: String) -> String? {
        guard let open = xml.firstRange(of: "<\(name)>"),
            let close = xml[open.upperBound...].firstRange(of: "</\(name)>")
        else { return nil }
        return String(xml[open.upperBound..<close.lowerBound])
            .replacing("&lt;", with: "<").replacing("&gt;", with: ">")
            .replacing("&quot;", with: "\"").replacing("&apos;", with: "'")
            .replacing("&amp;", with: "&")
    }
}
