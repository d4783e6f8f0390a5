import AssetImaging
import AssetLoading
import AssetPipeline
import AssetStorage
import Foundation
import HTTPTypes
import NIOCore

/// An encoded variant ready to be sent, kept in the image memory cache under
/// ``memoryKey(sourceKey:transform:accepted:)`` (a key the request alone gives, before any load):
/// its body, its head, and the freshness of the source version it was made from.
///
/// It answers while that source version is fresh (the variant's own freshness is the source's:
/// the same `Cache-Control` and `Age`); a stale one goes back through the loader, which revalidates
/// the source, and a changed source names another variant.
final class ServedVariant: Sendable {
    let body: ByteBuffer
    /// The fields of a 200 but `Age`, `X-Assetpipe-Cache` and the server's own.
    let fields: HTTPFields
    /// The whole head of a memory hit but `Age`, for the event loop's hot path.
    let hotFields: HTTPFields
    /// The same head as HTTP/1.1 bytes (``HTTPHeadBytes``).
    let hotHead: ByteBuffer
    let eTag: String
    let lastModified: String?
    /// The source's freshness, which is the variant's.
    let freshness: HotFreshness

    init(body: ByteBuffer, fields: HTTPFields, eTag: String, lastModified: String?, stored: StoredResponse,
         policy: FreshnessPolicy, nodeName: String) {
        self.body = body
        self.fields = fields
        var hot = fields
        hot[.xCache] = "memory"
        hot[.server] = AssetPipelineVersion.productToken
        hot[.xNode] = nodeName
        hot[.contentLength] = String(body.readableBytes)
        self.hotFields = hot
        self.hotHead = HTTPHeadBytes.make(status: 200, fields: hot)
        self.eTag = eTag
        self.lastModified = lastModified
        self.freshness = HotFreshness(stored: stored, policy: policy)
    }

    /// The same variant with the freshness of a revalidated source.
    func refreshed(stored: StoredResponse, policy: FreshnessPolicy, nodeName: String) -> ServedVariant {
        var fields = self.fields
        ServedVariant.setFreshnessFields(&fields, from: stored.headers)
        return ServedVariant(body: body, fields: fields, eTag: eTag, lastModified: lastModified, stored: stored, policy: policy, nodeName: nodeName)
    }

    /// The memory-cache key of the served variant of `transform` of the source under `sourceKey`
    /// for a client that accepts `accepted`.
    static func memoryKey(sourceKey: String, transform: ImageTransform, accepted: [OutputFormat]?) -> String {
        "served-variant\u{1F}" + sourceKey + "\u{1F}" + transform.canonicalText + "\u{1F}"
            + VariantKey.formatKey(transform.format, accepted: accepted)
    }

    /// Whether it may answer a request without request directives at `now`.
    func isFresh(at now: Date) -> Bool { freshness.isFresh(at: now) }

    /// Its memory cost: the body and about two kilobytes of fields and heads.
    var cost: Int { body.readableBytes + 2_048 }

    /// Copies the freshness fields of a source (`Cache-Control`, `Expires`) into `fields`.
    static func setFreshnessFields(_ fields: inout HTTPFields, from source: HeaderFields) {
        fields[.cacheControl] = source["Cache-Control"]
        fields[.expires] = source["Expires"]
    }

    /// The reply to `incoming`: a `304` or `412` by its conditional fields, else the whole body.
    func reply(to incoming: IncomingRequest, now: Date, cacheStatus: String) -> Reply {
        var fields = self.fields
        fields[.age] = freshness.ageField(at: now)
        fields[.xCache] = cacheStatus
        return Self.reply(to: incoming, fields: fields, body: body, eTag: eTag, lastModified: lastModified, now: now)
    }

    /// The reply of a variant's `fields` and `body` to `incoming`, by its conditional fields.
    static func reply(
        to incoming: IncomingRequest, fields: HTTPFields, body: ByteBuffer, eTag: String, lastModified: String?, now: Date
    ) -> Reply {
        let conditions = incoming.conditions
        if !conditions.isEmpty {
            switch conditions.evaluate(eTag: eTag, lastModified: lastModified, now: now) {
            case .proceed: break
            case .notModified: return .empty(.notModified, fields: Representation.notModifiedFields(fields))
            case .preconditionFailed: return .empty(.preconditionFailed, fields: Representation.notModifiedFields(fields))
            }
        }
        var reply = Reply(status: .ok, fields: fields, buffer: body)
        reply.cacheStatus = fields[.xCache]
        return reply
    }
}
