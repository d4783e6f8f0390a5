/// A directed graph over `0..<count` whose edges are given as lists, walked iteratively (a hostile
/// file's chains are as long as it likes, the stack is not).
struct ReferenceGraph {
    let edges: [[Int]]

    /// A node on a cycle, or nil when there is none.
    func nodeOnCycle() -> Int? {
        // 0 = not visited, 1 = on the path being followed, 2 = done.
        var state = [UInt8](repeating: 0, count: edges.count)
        for root in edges.indices where state[root] == 0 {
            var stack: [(node: Int, next: Int)] = [(root, 0)]
            state[root] = 1
            while let top = stack.last {
                let targets = edges[top.node]
                if top.next >= targets.count {
                    state[top.node] = 2
                    stack.removeLast()
                    continue
                }
                stack[stack.count - 1].next += 1
                let target = targets[top.next]
                if state[target] == 1 { return target }
                if state[target] == 0 {
                    state[target] = 1
                    stack.append((target, 0))
                }
            }
        }
        return nil
    }

    /// For each node of an acyclic graph, the most nodes on a path that starts there (1 for a
    /// node without edges).
    func pathLengths() -> [Int] {
        var length = [Int](repeating: 0, count: edges.count)
        for root in edges.indices where length[root] == 0 {
            var stack: [(node: Int, next: Int)] = [(root, 0)]
            while let top = stack.last {
                let targets = edges[top.node]
                if top.next >= targets.count {
                    length[top.node] = 1 + (targets.map { length[$0] }.max() ?? 0)
                    stack.removeLast()
                    continue
                }
                stack[stack.count - 1].next += 1
                let target = targets[top.next]
                if length[target] == 0 { stack.append((target, 0)) }
            }
        }
        return length
    }
}
