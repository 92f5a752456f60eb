// Whether one URLSession's libcurl work can wait without stalling another
// session's: FoundationNetworking on Linux runs the transfers of every
// session on one serial queue, so it cannot. Run by
// `Benchmarks/urlsession-shared-queue URL`.
//
// Session A's delegate queue holds the thread that adds a block to it (the
// session's work queue, where libcurl runs) for 3 s on the first block it is
// given (the response's head).
// Session B, another session with a delegate queue of its own, sends a
// request half a second later, and prints how long it took. With `control`
// as the second argument nothing is held.
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

final class HoldingQueue: OperationQueue, @unchecked Sendable {
    let lock = NSLock()
    var held: Bool

    init(holds: Bool) {
        held = !holds
        super.init()
    }

    override func addOperation(_ block: @Sendable @escaping () -> Void) {
        let first = lock.withLock { () -> Bool in
            defer { held = true }
            return !held
        }
        if first { Thread.sleep(forTimeInterval: 3) }
        super.addOperation(block)
    }
}

final class Delegate: NSObject, URLSessionDataDelegate {}

guard CommandLine.arguments.count > 1, let url = URL(string: CommandLine.arguments[1]) else {
    print("usage: shared-work-queue URL [control]")
    exit(2)
}
let holding = HoldingQueue(holds: CommandLine.arguments.count < 3)
holding.maxConcurrentOperationCount = 1
let sessionA = URLSession(configuration: .ephemeral, delegate: Delegate(), delegateQueue: holding)
let sessionB = URLSession(configuration: .ephemeral)
sessionA.dataTask(with: url).resume()
Thread.sleep(forTimeInterval: 0.5)
let start = Date()
let done = DispatchSemaphore(value: 0)
sessionB.dataTask(with: url) { data, _, error in
    let seconds = String(format: "%.2f", Date().timeIntervalSince(start))
    print("session B: \(data?.count ?? 0) bytes\(error.map { ", \($0)" } ?? "") after \(seconds) s"
        + (holding.held && CommandLine.arguments.count < 3 ? " (session A's work queue held for 3 s)" : " (nothing held)"))
    done.signal()
}.resume()
done.wait()
