/// Turns parsed layer lists into `LottieLayer`s while counting layers against the configured limit.
struct LottieModelDecoder {
    let maxLayers: Int
    private(set) var layerCount = 0

    init(maxLayers: Int) {
        self.maxLayers = maxLayers
    }

    /// The layers of `list`, or `nil` when an element is not an object (the caller then keeps the
    /// list untyped, so that nothing is lost).
    mutating func layers(_ list: [JSONValue]) throws(LottieError) -> [LottieLayer]? {
        layerCount += list.count
        guard layerCount <= maxLayers else {
            throw LottieError.layerLimitExceeded.with("more than \(maxLayers) layers")
        }
        var layers: [LottieLayer] = []
        layers.reserveCapacity(list.count)
        for element in list {
            guard case .object(let object) = element else { return nil }
            layers.append(LottieLayer(object: object))
        }
        return layers
    }
}
