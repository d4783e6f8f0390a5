import AssetImaging
import AssetLoading
import AssetPipeline
import Foundation
import HTTPTypes
import NIOCore

/// `GET|HEAD /v1/storyboard?url=VIDEO&interval=10s&w=160&format=vtt|json|jpg|webp`: a video's
/// storyboard (``VideoStoryboards``), as Mux serves one: a WebVTT thumbnails track whose cues are
/// `SPRITE_URL#xywh=x,y,w,h`, the same as JSON, or the sprite sheet itself (``StoryboardTarget``).
///
/// - The video is read by range through the chunk store: its head, its index, and the key frames
///   the tiles show; never whole.
/// - The sprite URL is relative to the storyboard's (`storyboard?url=…&format=jpg`): the same
///   storyboard, which the cache answers without decoding again.
/// - Each answer has a strong `ETag` of the storyboard's key (the chunk record's validator in
///   it), the video's `Last-Modified`, `Cache-Control`, `Expires` and `Age`; a conditional request
///   is answered before any decode.
/// - A server with a signing key answers signed storyboards only (``StoryboardTarget``: 403
///   `signature_required` or `bad_signature`, as `/v1/image` refuses, before anything is
///   fetched), and signs the sprite URLs it writes into the VTT and JSON.
struct StoryboardEndpoint: Sendable {
    let context: ServerContext

    func answer(_ incoming: IncomingRequest) async throws -> Reply {
        let signer = context.configuration.images.signer
        let target: StoryboardTarget
        do {
            target = try StoryboardTarget(incoming, signer: signer)
        } catch let error as AssetServerError {
            context.metrics.recordRefusal(code: error.shortDescription)
            throw error
        }
        let storyboards = context.storyboards
        let named = try await storyboards.storyboardRequest(for: target.source, spec: target.spec, format: target.spriteFormat)
        let stored = named.resource.http.map(StoredResponse.init)
        let lastModified = named.validator == nil ? nil : named.resource.lastModified
        let eTag = named.validator == nil ? nil : Self.entityTag(named.entityTag, target.answer)
        let now = context.now
        var fields = HTTPFields()
        fields[.eTag] = eTag
        fields[.lastModified] = lastModified
        if let stored {
            ServedVariant.setFreshnessFields(&fields, from: stored.headers)
            fields[.age] = HotFreshness(stored: stored, policy: context.policy).ageField(at: now)
        }
        if let eTag, !incoming.conditions.isEmpty {
            let outcome = incoming.conditions.evaluate(eTag: eTag, lastModified: lastModified, now: now)
            if outcome != .proceed {
                return .empty(outcome == .notModified ? .notModified : .preconditionFailed, fields: fields)
            }
        }
        let service = context.configuration.images
        let board: VideoStoryboard
        do {
            board = try await Deadline.run(within: service.transformTimeout) { try await storyboards.storyboard(for: named) }
        } catch let error as AssetServerError where error.shortDescription == "timeout" {
            throw AssetServerError.transformTimeout(retryAfter: service.retryAfterSeconds)
        }
        let body: ByteBuffer
        switch target.answer {
        case .vtt:
            fields[.contentType] = "text/vtt; charset=utf-8"
            body = ByteBuffer(string: board.webVTT(spriteURL: Self.spriteURL(target, signer: signer)))
        case .json:
            fields[.contentType] = "application/json"
            body = ByteBuffer(string: board.json(spriteURL: Self.spriteURL(target, signer: signer)))
        case .sprite:
            fields[.contentType] = board.mediaType
            fields[.xImageWidth] = String(board.width)
            fields[.xImageHeight] = String(board.height)
            body = ByteBuffer(bytes: board.sprite)
        }
        fields[.xCache] = board.origin == .transformed ? "miss" : board.origin.rawValue
        var reply = Reply(status: .ok, fields: fields, buffer: body)
        reply.cacheStatus = fields[.xCache]
        return reply
    }

    /// The sprite URL the VTT and JSON of `target` name: signed when the server signs, so that a
    /// player can fetch it (a storyboard's VTT, JSON and sprite share one signature).
    static func spriteURL(_ target: StoryboardTarget, signer: ImageURLSigner?) -> String {
        target.spriteURL(signature: signer?.signature(forStoryboard: target.spec, sprite: target.spriteFormat, source: target.source))
    }

    /// The storyboard's tag with the answer's kind: `"s-…-vtt"`, `"s-…-json"`, `"s-…"` for the sprite.
    static func entityTag(_ tag: String, _ answer: StoryboardTarget.Answer) -> String {
        answer == .sprite ? tag : String(tag.dropLast()) + "-" + answer.rawValue + "\""
    }
}
