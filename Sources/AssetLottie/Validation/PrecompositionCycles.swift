/// Finds cycles among precompositions (a precomposition that contains itself, directly or not)
/// with an iterative depth-first search.
enum PrecompositionCycles {
    static func find(in animation: LottieAnimation) -> [LottieProblem] {
        let assets = animation.assets ?? []
        var positionByID: [String: Int] = [:]
        for (position, asset) in assets.enumerated() {
            guard case .precomposition(let precomposition) = asset, let id = precomposition.id else { continue }
            if positionByID[id] == nil { positionByID[id] = position }
        }
        let layerLists: [[LottieLayer]] = assets.map { asset in
            if case .precomposition(let precomposition) = asset { return precomposition.layers }
            return []
        }
        // 0 = white, 1 = grey (on the DFS stack), 2 = black.
        var color = [UInt8](repeating: 0, count: assets.count)
        var problems: [LottieProblem] = []
        for root in assets.indices where color[root] == 0 && !layerLists[root].isEmpty {
            // Each frame: the asset position and the next layer to look at.
            var stack: [(asset: Int, layer: Int)] = [(root, 0)]
            color[root] = 1
            while let top = stack.last {
                let layers = layerLists[top.asset]
                if top.layer >= layers.count {
                    color[top.asset] = 2
                    stack.removeLast()
                    continue
                }
                stack[stack.count - 1].layer += 1
                let layer = layers[top.layer]
                guard case .precomposition = layer.content, let id = layer.referenceID,
                      let target = positionByID[id] else { continue }
                if color[target] == 1 {
                    problems.append(LottieProblem(path: "$.assets[\(top.asset)].layers[\(top.layer)].refId",
                                                  message: "precomposition \"\(id)\" refers back to itself (cycle)"))
                } else if color[target] == 0 {
                    color[target] = 1
                    stack.append((target, 0))
                }
            }
        }
        return problems
    }
}
