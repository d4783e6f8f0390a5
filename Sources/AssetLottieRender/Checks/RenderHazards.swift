import AssetLottie

/// The structures that make rlottie recurse without end or past its stack: a cycle in a
/// composition's parent chains, a precomposition that contains itself, precompositions nested
/// past a limit. Lenient parsing does not look for them, so the renderer does.
///
/// References are followed to every candidate: a parent to every layer of the composition with
/// that `ind`, a `refId` to every precomposition with that `id`. Whichever duplicate a renderer
/// picks, no cycle can slip through.
enum RenderHazards {
    /// The first hazard found, or nil.
    static func find(in animation: LottieAnimation, maxNesting: Int) -> LottieProblem? {
        if let layers = animation.layers, let problem = parentCycle(in: layers, path: "$.layers") {
            return problem
        }
        let assets = animation.assets ?? []
        var compositions: [(position: Int, layers: [LottieLayer])] = []
        for (position, asset) in assets.enumerated() {
            guard case .precomposition(let precomposition) = asset else { continue }
            if let problem = parentCycle(in: precomposition.layers, path: "$.assets[\(position)].layers") {
                return problem
            }
            compositions.append((position, precomposition.layers))
        }
        return nesting(of: animation.layers ?? [], in: assets, compositions: compositions, maxNesting: maxNesting)
    }

    private static func parentCycle(in layers: [LottieLayer], path: String) -> LottieProblem? {
        var positionsByIndex: [Int: [Int]] = [:]
        for (position, layer) in layers.enumerated() {
            if let index = layer.index { positionsByIndex[index, default: []].append(position) }
        }
        let graph = ReferenceGraph(edges: layers.map { layer in
            layer.parent.flatMap { positionsByIndex[$0] } ?? []
        })
        guard let position = graph.nodeOnCycle() else { return nil }
        return LottieProblem(path: "\(path)[\(position)].parent", message: "parent chain forms a cycle")
    }

    private static func nesting(
        of rootLayers: [LottieLayer], in assets: [LottieAsset], compositions: [(position: Int, layers: [LottieLayer])],
        maxNesting: Int
    ) -> LottieProblem? {
        var nodesByID: [String: [Int]] = [:]
        for (node, composition) in compositions.enumerated() {
            if let id = assets[composition.position].id { nodesByID[id, default: []].append(node) }
        }
        func targets(of layers: [LottieLayer]) -> [Int] {
            layers.flatMap { layer -> [Int] in
                guard case .precomposition = layer.content, let id = layer.referenceID else { return [] }
                return nodesByID[id] ?? []
            }
        }
        let graph = ReferenceGraph(edges: compositions.map { targets(of: $0.layers) })
        if let node = graph.nodeOnCycle() {
            return LottieProblem(path: "$.assets[\(compositions[node].position)]",
                                 message: "precomposition contains itself (cycle)")
        }
        let lengths = graph.pathLengths()
        let depth = targets(of: rootLayers).map { lengths[$0] }.max() ?? 0
        guard depth <= maxNesting else {
            return LottieProblem(path: "$.layers", message: "precompositions nest \(depth) deep (limit \(maxNesting))")
        }
        return nil
    }
}
