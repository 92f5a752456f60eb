import Foundation
import NIOCore

/// What the server shares between connections: routes, the request log, the
/// open connections and the tasks waiting on them.
final class ServerState: Sendable {
    private struct Route {
        let path: String
        let prefix: Bool
        let handler: LoopbackHandler
    }

    private struct RequestWaiter {
        let match: @Sendable ([RecordedRequest]) -> RecordedRequest?
        let continuation: CheckedContinuation<RecordedRequest, Never>
    }

    private struct Storage {
        var routes: [Route] = []
        var requests: [RecordedRequest] = []
        var requestWaiters: [RequestWaiter] = []
        var nextConnectionID = 0
        var openConnections: [Int: any Channel] = [:]
        var closed: Set<Int> = []
        var closeWaiters: [Int: [CheckedContinuation<Void, Never>]] = [:]
        /// Request body bytes received so far, by path, before each request ends.
        var bodyBytes: [String: Int] = [:]
        var bodyWaiters: [(path: String, atLeast: Int, continuation: CheckedContinuation<Void, Never>)] = []
    }

    private let storage = Protected(Storage())

    // MARK: - Routes

    func addRoute(path: String, prefix: Bool, handler: @escaping LoopbackHandler) {
        storage.withLock { $0.routes.insert(Route(path: path, prefix: prefix, handler: handler), at: 0) }
    }

    func customHandler(for path: String) -> LoopbackHandler? {
        storage.withLock { storage in
            storage.routes.first { route in
                route.prefix ? path.hasPrefix(route.path) : path == route.path
            }?.handler
        }
    }

    // MARK: - Requests

    var requests: [RecordedRequest] { storage.withLock { $0.requests } }

    func record(_ request: RecordedRequest) {
        let ready = storage.withLock { storage -> [(CheckedContinuation<RecordedRequest, Never>, RecordedRequest)] in
            storage.requests.append(request)
            var ready: [(CheckedContinuation<RecordedRequest, Never>, RecordedRequest)] = []
            storage.requestWaiters.removeAll { waiter in
                guard let match = waiter.match(storage.requests) else { return false }
                ready.append((waiter.continuation, match))
                return true
            }
            return ready
        }
        for (continuation, request) in ready {
            continuation.resume(returning: request)
        }
    }

    func waitForRequest(_ match: @escaping @Sendable ([RecordedRequest]) -> RecordedRequest?) async -> RecordedRequest {
        await withCheckedContinuation { continuation in
            let found = storage.withLock { storage -> RecordedRequest? in
                if let found = match(storage.requests) { return found }
                storage.requestWaiters.append(RequestWaiter(match: match, continuation: continuation))
                return nil
            }
            if let found {
                continuation.resume(returning: found)
            }
        }
    }

    func reset() {
        storage.withLock { $0.requests.removeAll() }
    }

    // MARK: - Request bodies as they arrive

    func bodyArrived(path: String, count: Int) {
        let ready = storage.withLock { storage -> [CheckedContinuation<Void, Never>] in
            let total = storage.bodyBytes[path, default: 0] + count
            storage.bodyBytes[path] = total
            var ready: [CheckedContinuation<Void, Never>] = []
            storage.bodyWaiters.removeAll { waiter in
                guard waiter.path == path, total >= waiter.atLeast else { return false }
                ready.append(waiter.continuation)
                return true
            }
            return ready
        }
        for continuation in ready { continuation.resume() }
    }

    func waitForBodyBytes(path: String, atLeast count: Int) async {
        await withCheckedContinuation { continuation in
            let arrived = storage.withLock { storage -> Bool in
                if storage.bodyBytes[path, default: 0] >= count { return true }
                storage.bodyWaiters.append((path, count, continuation))
                return false
            }
            if arrived { continuation.resume() }
        }
    }

    // MARK: - Connections

    func open(_ channel: any Channel) -> Int {
        storage.withLock { storage in
            storage.nextConnectionID += 1
            storage.openConnections[storage.nextConnectionID] = channel
            return storage.nextConnectionID
        }
    }

    func closed(_ id: Int) {
        let waiters = storage.withLock { storage in
            storage.openConnections.removeValue(forKey: id)
            storage.closed.insert(id)
            return storage.closeWaiters.removeValue(forKey: id) ?? []
        }
        for waiter in waiters {
            waiter.resume()
        }
    }

    var closedCount: Int { storage.withLock { $0.closed.count } }

    func waitForClose(_ id: Int) async {
        await withCheckedContinuation { continuation in
            let alreadyClosed = storage.withLock { storage in
                if storage.closed.contains(id) { return true }
                storage.closeWaiters[id, default: []].append(continuation)
                return false
            }
            if alreadyClosed {
                continuation.resume()
            }
        }
    }

    func closeAllConnections() {
        let channels = storage.withLock { Array($0.openConnections.values) }
        for channel in channels {
            channel.close(promise: nil)
        }
    }
}
