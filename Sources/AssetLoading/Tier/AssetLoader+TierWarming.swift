import Foundation
import AssetStorage
import AsyncHTTPClient
import NIOCore

/// What warming one URL in the tier did.
public struct TierWarming: Sendable, Hashable {
    /// The node that answered (`X-Assetpipe-Node`), if it said.
    public var node: String?
    /// The tier's status.
    public var status: Int
    /// Body bytes the tier sent (and this side dropped).
    public var bytes: Int64
    /// What the node's cache did (`X-Assetpipe-Cache`: `miss`, `memory`, `disk`, `revalidated`,
    /// `chunks`...), if it said.
    public var cacheStatus: String?
}

extension AssetLoader {
    /// Makes the tier node that owns `url` fetch and keep it: a `GET` through the tier whose body is
    /// read and dropped, nothing stored here. Needs a ``Configuration/tier``; a failing tier is not
    /// replaced by the origin (there is nothing to warm there).
    ///
    /// Throws a ``LoaderError``: ``LoaderError/http(_:)`` for a status other than 200.
    public func warmTier(for location: URL, kind: AssetKind?) async throws -> TierWarming {
        try await warmTier(for: location, kind: kind, imageQuery: nil, accept: nil)
    }

    /// Makes the tier node that owns `url` make and keep an image variant of it: a `GET` of the
    /// tier's `/v1/image?url=U&<imageQuery>` sent with `accept` (the `Accept` field a client would
    /// send, which picks the format of `format=auto`), body dropped.
    public func warmTierVariant(for location: URL, imageQuery: String, accept: String?) async throws -> TierWarming {
        try await warmTier(for: location, kind: .image, imageQuery: imageQuery, accept: accept)
    }

    private func warmTier(for location: URL, kind: AssetKind?, imageQuery: String?, accept: String?) async throws -> TierWarming {
        let url = location.absoluteString
        guard let tier = self.configuration.tier else {
            throw LoaderError.invalidURL.with(message: "no tier is configured to warm")
        }
        var request = HTTPClientRequest(url: imageQuery.map { tier.imageURL(for: url, query: $0) } ?? tier.assetURL(for: url, kind: kind))
        request.method = .GET
        if let accept { request.headers.add(name: "Accept", value: accept) }
        let deadline = NIODeadline.now() + Self.timeAmount(self.configuration.totalTimeout)
        do {
            let answer = try await self.send(request, deadline: deadline, followRedirects: false).response
            let status = Int(answer.status.code)
            var bytes: Int64 = 0
            for try await piece in answer.body { bytes += Int64(piece.readableBytes) }
            let node = answer.headers.first(name: "X-Assetpipe-Node")
            guard status == 200 else {
                throw LoaderError.http(status).with(message: "the tier\(node.map { " node \($0)" } ?? "") answered \(status) for \(url)")
            }
            self.metrics.recordTier("answered")
            return TierWarming(node: node, status: status, bytes: bytes, cacheStatus: answer.headers.first(name: "X-Assetpipe-Cache"))
        } catch {
            throw LoaderError.mapping(error)
        }
    }
}
