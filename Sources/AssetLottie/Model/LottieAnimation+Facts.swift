extension LottieAnimation {
    /// `(op - ip) / fr`, when all three are present and `fr > 0`.
    public var durationSeconds: Double? {
        guard let frameRate, frameRate > 0, let inPoint, let outPoint else { return nil }
        return (outPoint - inPoint) / frameRate
    }

    /// The root composition's layer count.
    public var layerCount: Int { layers?.count ?? 0 }

    /// Layers of the root and of every precomposition asset.
    public var totalLayerCount: Int {
        var count = layerCount
        for case .precomposition(let precomposition) in assets ?? [] { count += precomposition.layers.count }
        return count
    }

    /// The number of entries in `assets`.
    public var assetCount: Int { assets?.count ?? 0 }

    /// The first asset with `id`.
    public func asset(id: String) -> LottieAsset? {
        assets?.first { $0.id == id }
    }

    /// The ids of the assets reachable from the root's layers, through precompositions.
    ///
    /// Iterative with a visited set, so cyclic references (a precomposition that contains itself)
    /// terminate.
    public var usedAssetIDs: Set<String> {
        var byID: [String: LottieAsset] = [:]
        for asset in assets ?? [] {
            if let id = asset.id, byID[id] == nil { byID[id] = asset }
        }
        var used = Set<String>()
        var pending: [[LottieLayer]] = [layers ?? []]
        while let list = pending.popLast() {
            for layer in list {
                guard let id = layer.referenceID, let asset = byID[id], used.insert(id).inserted else { continue }
                if case .precomposition(let precomposition) = asset { pending.append(precomposition.layers) }
            }
        }
        return used
    }
}
