/// Finds cycles in the parent chains of one composition's layers, iteratively, in O(n).
enum ParentCycles {
    static func find(in layers: [LottieLayer], positionByIndex: [Int: Int], path: String) -> [LottieProblem] {
        // 0 = not visited, 1 = on the chain being followed, 2 = done.
        var state = [UInt8](repeating: 0, count: layers.count)
        var problems: [LottieProblem] = []
        for start in layers.indices where state[start] == 0 {
            var chain: [Int] = []
            var current: Int? = start
            while let position = current {
                if state[position] == 2 { break }
                if state[position] == 1 {
                    problems.append(LottieProblem(path: "\(path)[\(position)].parent",
                                                  message: "parent chain forms a cycle"))
                    break
                }
                state[position] = 1
                chain.append(position)
                current = layers[position].parent.flatMap { positionByIndex[$0] }
            }
            for position in chain { state[position] = 2 }
        }
        return problems
    }
}
