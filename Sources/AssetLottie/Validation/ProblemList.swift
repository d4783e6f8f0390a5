/// The problems of one validation, bounded: past `limit`, problems are dropped, and one last problem
/// at `$` says that some were.
struct ProblemList {
    let limit: Int
    private(set) var problems: [LottieProblem] = []
    private(set) var paths = Set<String>()
    private(set) var droppedCount = 0

    init(limit: Int) {
        self.limit = max(1, limit)
    }

    /// `false` once the list is full.
    var hasRoom: Bool { problems.count < limit }

    mutating func append(_ problem: LottieProblem) {
        guard hasRoom else {
            droppedCount += 1
            return
        }
        problems.append(problem)
        paths.insert(problem.path)
    }

    mutating func append(path: String, message: String) {
        append(LottieProblem(path: path, message: message))
    }

    mutating func append(contentsOf more: [LottieProblem]) {
        for problem in more { append(problem) }
    }

    /// The problems kept, then, if any were dropped, one that says so.
    var result: [LottieProblem] {
        guard droppedCount > 0 else { return problems }
        return problems + [LottieProblem(path: "$", message: "more problems not reported (limit \(limit))")]
    }
}
