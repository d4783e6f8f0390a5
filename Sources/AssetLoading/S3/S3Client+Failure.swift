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
