import AssetCodecs
import AssetImaging
import AssetLoading
import AssetLottie
import AssetLottieRender
import AssetPipeline
import AssetStorage
import AssetVideoFrames
import HTTPTypes

/// An error the server answers with: an HTTP status and a JSON body
/// `{"error": {"code": "...", "message": "..."}}` (plus `problems` for a Lottie file that fails strict
/// validation, `originStatus` for an origin's error status). Messages never carry a stack trace or a
/// path of the machine.
public struct AssetServerError: Error, Sendable, CustomStringConvertible {
    private enum Code: String, Sendable {
        case badRequest = "bad_request"
        case missingParameter = "missing_parameter"
        case invalidParameter = "invalid_parameter"
        case invalidURL = "invalid_url"
        case unsupportedScheme = "unsupported_scheme"
        case forbiddenDestination = "forbidden_destination"
        case notFound = "not_found"
        case methodNotAllowed = "method_not_allowed"
        case targetTooLong = "target_too_long"
        case bodyTooLarge = "body_too_large"
        case unauthorized
        case adminDisabled = "admin_disabled"
        case tooManyJobs = "too_many_jobs"
        case rangeNotSatisfiable = "range_not_satisfiable"
        case originStatus = "origin_status"
        case originFailed = "origin_failed"
        case originTimeout = "origin_timeout"
        case assetTooLarge = "asset_too_large"
        case notCached = "not_cached"
        case undecodable
        case invalidTransform = "invalid_transform"
        case unknownPreset = "unknown_preset"
        case presetOnly = "preset_only"
        case signatureRequired = "signature_required"
        case badSignature = "bad_signature"
        case sourceTooLarge = "source_too_large"
        case outputTooLarge = "output_too_large"
        case unsupportedFormat = "unsupported_format"
        case transformFailed = "transform_failed"
        case notAnAnimation = "not_an_animation"
        case frameOutOfRange = "frame_out_of_range"
        case renderFailed = "render_failed"
        case overloaded
        case transformTimeout = "transform_timeout"
        case timeout
        case unavailable
        case storage
        case `internal`
    }

    private let code: Code
    /// The status the server answers with.
    public let status: Int
    /// A message for people, without paths of this machine.
    public let message: String
    /// A more precise code of the layer that failed (`corrupt`, `validation_failed`, `http_404`...),
    /// or nil.
    public let detail: String?
    /// Extra members of the error object (`problems`, `originStatus`, `totalLength`).
    let extra: [(String, CompactJSON)]
    /// The representation's length, for the `Content-Range` of a 416.
    let totalLength: Int64?
    /// The seconds of a 503's `Retry-After`.
    let retryAfter: Int?

    private init(
        _ code: Code, _ status: Int, _ message: String, detail: String? = nil, extra: [(String, CompactJSON)] = [],
        totalLength: Int64? = nil, retryAfter: Int? = nil
    ) {
        self.retryAfter = retryAfter
        self.code = code
        self.status = status
        self.message = message
        self.detail = detail
        self.extra = extra
        self.totalLength = totalLength
    }

    /// The stable code, fit for a metric label and for clients to switch on.
    public var shortDescription: String { code.rawValue }

    /// The status, the code and the message: `404 not_found: no such endpoint`.
    public var description: String { "\(status) \(code.rawValue): \(message)" }

    static func missingParameter(_ name: String) -> Self {
        Self(.missingParameter, 400, "the query parameter '\(name)' is required")
    }
    static func invalidParameter(_ name: String, _ why: String) -> Self {
        Self(.invalidParameter, 400, "the query parameter '\(name)' \(why)")
    }
    static func badRequest(_ message: String) -> Self { Self(.badRequest, 400, message) }
    static let notFound = Self(.notFound, 404, "no such endpoint")
    static func notFoundJob(_ id: String) -> Self { Self(.notFound, 404, "no prefetch job \(id.prefix(64))") }
    static func methodNotAllowed(_ method: String) -> Self {
        Self(.methodNotAllowed, 405, "the method \(method) is not allowed here")
    }
    static let targetTooLong = Self(.targetTooLong, 414, "the request target is too long")
    static func bodyTooLarge(_ limit: Int) -> Self { Self(.bodyTooLarge, 413, "the request body is larger than \(limit) bytes") }
    static let unauthorized = Self(.unauthorized, 401, "a valid bearer token is required")
    static let adminDisabled = Self(.adminDisabled, 403, "the admin endpoints are off: the server has no admin token")
    static func tooManyJobs(_ limit: Int) -> Self { Self(.tooManyJobs, 429, "\(limit) prefetch jobs are running; try again later") }
    static func rangeNotSatisfiable(totalLength: Int64) -> Self {
        Self(.rangeNotSatisfiable, 416, "the range lies past the end of the \(totalLength) bytes",
             extra: [("totalLength", .number(Double(totalLength)))], totalLength: totalLength)
    }
    static let requestTimeout = Self(.timeout, 504, "the request took longer than the server allows")
    static let shuttingDown = Self(.unavailable, 503, "the server is shutting down")
    static func internalError(_ message: String) -> Self { Self(.internal, 500, message) }
    static func unknownPreset(_ name: String) -> Self { Self(.unknownPreset, 400, "no preset named '\(name.prefix(64))'") }
    static let presetOnly = Self(.presetOnly, 403, "this server makes its presets only: ask for preset=NAME (and format)")
    static let signatureRequired = Self(.signatureRequired, 403, "this server makes signed image URLs only: the signature is missing")
    static let badSignature = Self(.badSignature, 403, "the signature does not match the request")
    static func sourceTooLarge(_ message: String) -> Self { Self(.sourceTooLarge, 422, message) }
    static func overloaded(retryAfter: Int) -> Self {
        Self(.overloaded, 503, "too many transforms are running and waiting; try again shortly", retryAfter: retryAfter)
    }
    static func transformTimeout(retryAfter: Int) -> Self {
        Self(.transformTimeout, 503, "the variant was not ready in time; it is still being made", retryAfter: retryAfter)
    }
    static func invalidPath(_ why: String) -> Self { Self(.invalidParameter, 400, "the image path \(why)") }

    /// `message` cut to 300 characters: a refused value is echoed, but not a hostile megabyte of it.
    static func clipped(_ message: String) -> String {
        message.count <= 300 ? message : String(message.prefix(300)) + "..."
    }

    /// The answer for an error of the image service: transforms, limits and sources.
    static func fromImaging(_ error: any Error, retryAfter: Int) -> AssetServerError {
        switch error {
        case let error as ImagingError:
            switch error {
            case .invalidTransform: return Self(.invalidTransform, 400, Self.clipped(error.message))
            case .outputTooLarge: return Self(.outputTooLarge, 400, error.message)
            case .unsupportedFormat: return Self(.unsupportedFormat, 415, error.message)
            case .overloaded: return .overloaded(retryAfter: retryAfter)
            case .colorConversionFailed: return Self(.undecodable, 422, error.message, detail: error.shortDescription)
            case .notAnAnimation: return Self(.notAnAnimation, 422, error.message, detail: error.shortDescription)
            // the decoder's worker crashed or hung: ours (500), as a frame's renderer failing is
            case .decodeFailed: return Self(.renderFailed, 500, "the image could not be decoded", detail: error.shortDescription)
            default: return Self(.transformFailed, 500, error.message, detail: error.shortDescription)
            }
        case let error as CodecError where error == .tooLarge:
            return Self(.sourceTooLarge, 422, error.message, detail: error.shortDescription)
        case let error as LoaderError where error == .tooLarge:
            return Self(.sourceTooLarge, 422, "the source is larger than the server accepts", detail: error.shortDescription)
        default:
            return from(error)
        }
    }

    /// The answer for any error met while serving a request.
    static func from(_ error: any Error) -> AssetServerError {
        switch error {
        case let error as AssetServerError:
            return error
        case let error as LoaderError:
            return from(loader: error)
        case let error as CodecError:
            return Self(.undecodable, 422, error.message, detail: error.shortDescription)
        case let error as LottieError:
            var extra: [(String, CompactJSON)] = []
            if !error.problems.isEmpty {
                extra.append(("problems", .array(error.problems.prefix(1_000).map {
                    .object([("path", .string($0.path)), ("message", .string($0.message))])
                })))
            }
            if let path = error.path { extra.append(("path", .string(path))) }
            return Self(.undecodable, 422, error.message, detail: error.shortDescription, extra: extra)
        case let error as LottieRenderError:
            return from(render: error)
        case let error as VideoFrameError:
            // as a Lottie frame's: the decoder or its worker failing is ours (500), the video or
            // the time asked of it is at fault (422)
            switch error.code {
            case .renderFailed, .decoderUnavailable:
                return Self(.renderFailed, 500, "the frame could not be decoded", detail: error.code.rawValue)
            case .frameOutOfRange: return Self(.frameOutOfRange, 422, clipped(error.message), detail: error.code.rawValue)
            case .tooLarge: return Self(.sourceTooLarge, 422, clipped(error.message), detail: error.code.rawValue)
            default: return Self(.undecodable, 422, clipped(error.message), detail: error.code.rawValue)
            }
        case let error as VideoError:
            if error.code == .rangeNotSatisfiable, let total = error.totalLength { return .rangeNotSatisfiable(totalLength: total) }
            if let underlying = error.underlying as? LoaderError { return from(loader: underlying) }
            if error.code == .cancelled { return Self(.unavailable, 503, "the read was cancelled") }
            return Self(.originFailed, 502, error.message, detail: "video_\(error.code)")
        case is StorageError:
            return Self(.storage, 500, "the cache failed to read or store the asset")
        case is CancellationError:
            return Self(.unavailable, 503, "the request was cancelled")
        default:
            return Self(.internal, 500, "an internal error")
        }
    }

    /// A frame that was not rendered: 500 `render_failed` when rlottie or its worker process failed
    /// (a crash, a timeout: the server lives on, and the next request gets a new worker); 422 when
    /// the animation or the frame asked of it is at fault.
    private static func from(render error: LottieRenderError) -> AssetServerError {
        let detail = error.shortDescription
        switch error {
        case .renderFailed: return Self(.renderFailed, 500, "the frame could not be rendered", detail: detail)
        case .frameOutOfRange: return Self(.frameOutOfRange, 422, clipped(error.message), detail: detail)
        case .sizeTooLarge: return Self(.sourceTooLarge, 422, clipped(error.message), detail: detail)
        default: return Self(.undecodable, 422, clipped(error.message), detail: detail)
        }
    }

    private static func from(loader error: LoaderError) -> AssetServerError {
        let detail = error.shortDescription
        if let status = error.status {
            let answer = status == 404 || status == 410 ? status : 502
            return Self(.originStatus, answer, "the origin answered \(status)", detail: detail,
                        extra: [("originStatus", .number(Double(status)))])
        }
        switch detail {
        case "timeout": return Self(.originTimeout, 504, "the origin did not answer in time", detail: detail)
        case "too_large": return Self(.assetTooLarge, 502, "the asset is larger than the server accepts", detail: detail)
        case "invalid_url": return Self(.invalidURL, 400, "the URL is not a valid absolute http or https URL", detail: detail)
        case "unsupported_scheme": return Self(.unsupportedScheme, 400, "only http and https URLs are fetched", detail: detail)
        case "forbidden_destination": return Self(.forbiddenDestination, 403, "the destination is not allowed", detail: detail)
        case "not_cached": return Self(.notCached, 504, "the asset is not cached and the request forbids fetching it", detail: detail)
        case "storage": return Self(.storage, 500, "the cache failed", detail: detail)
        case "shutdown", "cancelled": return Self(.unavailable, 503, "the server is shutting down", detail: detail)
        default: return Self(.originFailed, 502, "the origin could not be reached or broke off", detail: detail)
        }
    }

    /// The JSON body.
    var json: CompactJSON {
        var members: [(String, CompactJSON)] = [("code", .string(code.rawValue)), ("message", .string(message))]
        if let detail { members.append(("detail", .string(detail))) }
        members += extra
        return .object([("error", .object(members))])
    }
}
