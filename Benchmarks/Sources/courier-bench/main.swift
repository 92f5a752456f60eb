import Courier
import CourierAsyncHTTPClient
import Foundation
import Logging

// courier-bench: Courier against the bare clients it wraps, interleaved in one
// run. Flags: --json (JSON array on stdout), --quick (short run),
// --only http|solo|pipeline|gzip|cache|download|stream|upload|events|close|processes|soak|postgres (one item), --pair NAME (only the
// HTTP pairs, or the processes item's pairs, whose name contains NAME), --rounds N (rounds of the processes
// item, 7 unless given), --delegate-side (the processes item measures the bare
// client's per-chunk API too: what seeing each chunk costs), --profile (below).

/// The logger's level of a `--profile` logging side; nil for "observe-noop".
func loggingLevel(_ side: String) -> Logger.Level? {
    switch side {
    case "logging-info": .info
    case "logging-debug": .debug
    default: nil
    }
}

/// Everything the bench does, as its arguments say.
func benchMain() async throws {
    let arguments = CommandLine.arguments

    if let index = arguments.firstIndex(of: "--child-download"), arguments.count > index + 2,
       let url = URL(string: arguments[index + 2]) {
        try await DownloadChild.run(side: arguments[index + 1], url: url)
        exit(0)
    }

    // --hook-cost PLUGINS: what PLUGINS no-op plugins cost a call. Two providers
    // on a transport that answers at once (the body collected, not decoded), one
    // with no plugin and one with PLUGINS plugins that leave every hook to its
    // default, run in alternating blocks of 5,000 calls, 31 blocks each; prints
    // each side's median CPU nanoseconds per call and the median of the paired
    // differences, then exits. Benchmarks/hook-cost runs it in several processes.
    if let index = arguments.firstIndex(of: "--hook-cost"), arguments.count > index + 1,
       let pluginCount = Int(arguments[index + 1]) {
        // Off the main actor, so that no call hops back to it.
        let line = try await Task.detached {
            let target = BenchTarget(baseURL: URL(string: "http://127.0.0.1:1")!)
            let bare = Provider<BenchTarget>(transport: StubTransport())
            let plugged = Provider<BenchTarget>(transport: StubTransport(),
                                                plugins: Array(repeating: NoopPlugin(), count: pluginCount))
            func block(_ provider: Provider<BenchTarget>, calls: Int = 5_000) async throws -> Double {
                let start = processCPUSeconds()
                for _ in 0..<calls {
                    _ = try await provider.request(target, mapper: DataMapper())
                }
                return (processCPUSeconds() - start) * 1e9 / Double(calls)
            }
            _ = try await block(bare, calls: 2_000)
            _ = try await block(plugged, calls: 2_000)
            var sides: (bare: [Double], plugged: [Double], gaps: [Double]) = ([], [], [])
            for round in 0..<31 {
                let first = round % 2 == 0
                let a = try await block(first ? bare : plugged)
                let b = try await block(first ? plugged : bare)
                let (none, with) = first ? (a, b) : (b, a)
                sides.bare.append(none)
                sides.plugged.append(with)
                sides.gaps.append(with - none)
            }
            func median(_ values: [Double]) -> Int { Int(values.sorted()[values.count / 2]) }
            return "\(median(sides.bare)) \(median(sides.plugged)) \(median(sides.gaps))"
        }.value
        print(line)
        exit(0)
    }

    // --write-payload PATH: writes the JSON document `/json` serves to PATH (for
    // the nginx of Benchmarks/nginx/run) and exits.
    if let index = arguments.firstIndex(of: "--write-payload"), arguments.count > index + 1 {
        try Payload.json.write(to: URL(fileURLWithPath: arguments[index + 1]))
        exit(0)
    }

    // --profile NAME courier|provider|logging-info|logging-debug|logging-events|logging-download|observe-noop|transport|bare|bare-url|bare-delegate[-pinned]|bare-session-delegate N [C] [--nginx]:
    // only N requests (C at a time, 1 unless given) of one side of the HTTP pair
    // whose name contains NAME ("transport": its transport called directly,
    // without the provider and the transfer stage), for a profiler such as
    // `perf record -g`; with --nginx against the nginx of Benchmarks/nginx/run
    // instead of the in-process server. It ends by printing, to stderr, the
    // allocations a request of the run's second half made, how much the heap
    // in use grew over that half, and the peak resident memory: a side that
    // keeps something per request shows there in one run.
    if let index = arguments.firstIndex(of: "--profile"), arguments.count > index + 3,
       let count = Int(arguments[index + 3]) {
        let server = try await BenchServer.start()
        // With --nginx, against the nginx of Benchmarks/nginx/run, so that the
        // process holds the client alone.
        let baseURL: URL
        if arguments.contains("--nginx") {
            guard let nginx = await Nginx.probe() else {
                log("--nginx: no nginx serving the bench's document (start Benchmarks/nginx/run)")
                exit(2)
            }
            baseURL = nginx
        } else {
            baseURL = server.baseURL
        }
        let clients = ClientSet(baseURL: baseURL)
        let pairs = clients.pipelinePairs.map { ClientPair(name: "pipeline \($0.name)", courier: $0.courier, bare: $0.bare) }
            + clients.transportPairs
        guard let pair = pairs.first(where: { $0.name.contains(arguments[index + 1]) }) else {
            log("no pair named like \(arguments[index + 1]); pairs: \(pairs.map(\.name))")
            exit(2)
        }
        let decodes = pair.name.hasPrefix("pipeline")
        // "bare-delegate": the client's API that sees each chunk (AsyncHTTPClient's
        // delegate API; URLSession's data(for:delegate:) with a task delegate).
        let client: BenchClient = switch arguments[index + 2] {
        case "bare": pair.bare()
        // In a pipeline pair it decodes the payload too, as the pair's sides do.
        case "bare-delegate" where pair.name.contains("URLSession"):
            ClientSet.onSession { Clients.bareURLSessionDelegate($0, baseURL: baseURL, decodes: decodes) }()
        // URLSession only: a session-level delegate collecting each body, the
        // transport's structure bare.
        case "bare-session-delegate": Clients.bareURLSessionSessionDelegate(baseURL: baseURL)
        case "bare-delegate": ClientSet.onHTTPClient {
            Clients.bareAsyncHTTPClientDelegate($0, baseURL: baseURL, decodes: decodes)
        }()
        // The delegate API with every request and connection on one loop: what
        // it costs when no callback crosses threads.
        case "bare-delegate-pinned": ClientSet.onHTTPClient {
            Clients.bareAsyncHTTPClientDelegate($0, baseURL: baseURL, eventLoop: .delegateAndChannel(on: $0.eventLoopGroup.next()))
        }()
        case "transport" where pair.name.contains("URLSession"):
            ClientSet.onURLSessionTransport { Clients.transportDirect($0, baseURL: baseURL, decodes: decodes) }()
        case "transport": ClientSet.onHTTPClient {
            Clients.transportDirect(AsyncHTTPClientTransport(client: $0), baseURL: baseURL, decodes: decodes)
        }()
        // The layers of a pipeline pair (Benchmarks/layers): the bare client
        // making its request for every call, and a provider without plugins.
        case "bare-url" where pair.name.contains("URLSession"):
            ClientSet.onSession { Clients.bareURLSessionBuildingURL($0, baseURL: baseURL) }()
        case "bare-url": ClientSet.onHTTPClient { Clients.bareAsyncHTTPClientBuildingURL($0, baseURL: baseURL) }()
        case "provider" where pair.name.contains("URLSession"):
            ClientSet.onURLSessionTransport { Clients.courierWithoutPlugins(on: $0, baseURL: baseURL) }()
        case "provider": ClientSet.onHTTPClient { Clients.courierWithoutPlugins(on: AsyncHTTPClientTransport(client: $0), baseURL: baseURL) }()
        // A provider with the logging plugin alone, at info or debug, lines
        // dropped: against "provider", what logging costs (Benchmarks/logging-cost).
        // "observe-noop": a plugin whose willSend and didReceive do nothing instead.
        case "logging-info" where pair.name.contains("URLSession"), "logging-debug" where pair.name.contains("URLSession"),
             "observe-noop" where pair.name.contains("URLSession"):
            ClientSet.onURLSessionTransport { Clients.courierLogging(on: $0, baseURL: baseURL, level: loggingLevel(arguments[index + 2])) }()
        // The walks of a streamed call of server-sent events and of a download,
        // with the logging plugin (Benchmarks/walk).
        case "logging-events" where pair.name.contains("URLSession"), "logging-download" where pair.name.contains("URLSession"):
            ClientSet.onURLSessionTransport {
                Clients.courierLoggingWalk(on: $0, baseURL: baseURL, streams: arguments[index + 2] == "logging-events")
            }()
        case "logging-events", "logging-download": ClientSet.onHTTPClient {
            Clients.courierLoggingWalk(on: AsyncHTTPClientTransport(client: $0), baseURL: baseURL,
                                       streams: arguments[index + 2] == "logging-events")
        }()
        case "logging-info", "logging-debug", "observe-noop": ClientSet.onHTTPClient {
            Clients.courierLogging(on: AsyncHTTPClientTransport(client: $0), baseURL: baseURL, level: loggingLevel(arguments[index + 2]))
        }()
        default: pair.courier()
        }
        let operation = client.operation
        let concurrency = arguments.count > index + 4 ? max(1, Int(arguments[index + 4]) ?? 1) : 1
        if arguments.contains("--report") {
            // For ProcessPairsBenchmark: warmed up, then "requests/s CPU-us-per-request".
            _ = try await throughput(total: 200, concurrency: concurrency, operation)
            let startCPU = processCPUSeconds()
            let rate = try await throughput(total: count, concurrency: concurrency, operation)
            print("\(rate) \((processCPUSeconds() - startCPU) / Double(count) * 1e6)")
            await client.shutdown()
            await server.shutdown()
            exit(0)
        }
        log("profiling \(pair.name), \(arguments[index + 2]), \(count) requests, \(concurrency) at a time")
        // In two halves, so the second shows what a request leaves behind
        // once the first has warmed the pools and caches up.
        func run(_ requests: Int) async throws {
            try await withThrowingTaskGroup(of: Void.self) { group in
                for worker in 0..<concurrency {
                    group.addTask {
                        for _ in stride(from: worker, to: requests, by: concurrency) { try await operation() }
                    }
                }
                try await group.waitForAll()
            }
        }
        let firstHalf = count / 2
        try await run(firstHalf)
        log(try await ProfileMemory.measuring(requests: count - firstHalf) { try await run(count - firstHalf) }.description)
        // With COURIER_BENCH_ALLOCATION_TRACE=DIR, one more request, every
        // allocation in the process (server and event loops too) traced.
        if let directory = ProcessInfo.processInfo.environment["COURIER_BENCH_ALLOCATION_TRACE"] {
            try await traceAllocations(of: operation, to: "\(directory)/profile.\(arguments[index + 2]).trace")
        }
        await client.shutdown()
        await server.shutdown()
        exit(0)
    }

    let json = arguments.contains("--json")
    let quick = arguments.contains("--quick")
    let only = arguments.firstIndex(of: "--only").flatMap { arguments.count > $0 + 1 ? arguments[$0 + 1] : nil }
    func wanted(_ item: String) -> Bool { only == nil || only == item }
    let pair = arguments.firstIndex(of: "--pair").flatMap { arguments.count > $0 + 1 ? arguments[$0 + 1] : nil }

    let server = try await BenchServer.start()
    log("server: \(BenchServer.description), \(server.baseURL.absoluteString)")
    var rows: [Row] = []

    if wanted("http") {
        log("items 1-2: HTTP over loopback")
        let clients = ClientSet(baseURL: server.baseURL)
        let secureServer = try await BenchServer.start(tls: true)
        log("HTTPS server: the same, with TLS 1.3 and the tests' certificate, \(secureServer.baseURL.absoluteString)")
        let secureClients = try SecureClientSet(baseURL: secureServer.baseURL)
        rows += try await HTTPBenchmarks(clients: clients, secureClients: secureClients, quick: quick, pairFilter: pair).run()
        await secureServer.shutdown()
        if let nginx = await Nginx.probe() {
            log("nginx: serving the same document at \(nginx.absoluteString); every HTTP pair again against it (rows marked nginx)")
            let nginxClients = ClientSet(baseURL: nginx)
            rows += try await HTTPBenchmarks(clients: nginxClients, secureClients: nil, quick: quick, pairFilter: pair,
                                             serverName: "nginx").run()
        } else {
            log("nginx: none serving the document at \(Nginx.baseURL.absoluteString); start one with Benchmarks/nginx/run "
                + "to measure the HTTP pairs against it too")
        }
    }
    if wanted("solo") {
        log("each side alone in a child: CPU (and instructions, where counted) per request")
        rows += try SoloCounts.run(quick: quick)
    }
    if wanted("pipeline") {
        log("item 3: pipeline on a stub transport")
        rows += try await PipelineBenchmark(quick: quick).run()
    }
    if wanted("gzip") {
        log("item 4: gzip")
        rows += try GzipBenchmark(quick: quick).run()
    }
    if wanted("cache") {
        log("item 5: cache hits")
        rows += try await CacheBenchmark(quick: quick).run()
    }
    if wanted("download") {
        log("item 6: download to file")
        rows += try DownloadBenchmark(baseURL: server.baseURL, quick: quick).run()
    }
    if wanted("stream") {
        log("item 6b: a streamed call read as it arrives")
        rows += try DownloadBenchmark(baseURL: server.baseURL, quick: quick, streams: true).run()
    }
    if wanted("upload") {
        log("item 6d: a request body made as it is sent")
        rows += try DownloadBenchmark(baseURL: server.baseURL, quick: quick, uploads: true).run()
    }
    if wanted("events") {
        log("item 6c: server-sent events parsed as they arrive")
        rows += try await EventStreamBenchmark(quick: quick).run()
    }
    var notes: [String] = []
    if wanted("processes") {
        log("item 2b: each client in its own process, against nginx")
        if await Nginx.probe() != nil {
            let rounds = arguments.firstIndex(of: "--rounds").flatMap { $0 + 1 < arguments.count ? Int(arguments[$0 + 1]) : nil }
            rows += try ProcessPairsBenchmark(quick: quick, rounds: rounds, pairFilter: pair,
                                              delegateSide: arguments.contains("--delegate-side")).run()
        } else {
            log("  not measured: no nginx serving the bench's document (start Benchmarks/nginx/run)")
        }
    }
    if wanted("close") {
        log("item 6d: how soon a streamed call's connection closes after its reader leaves")
        notes += try await CloseBenchmark(baseURL: server.baseURL, quick: quick).run()
    }
    if wanted("soak") {
        log("item 7: soak, every shipped plugin on each transport")
        rows += try await SoakBenchmark(baseURL: server.baseURL, quick: quick).run()
    }
    if wanted("postgres") {
        log("item 8: PostgreSQL cache hits and a fleet refresh")
        do {
            rows += try await PostgresBenchmark(quick: quick).run()
        } catch {
            log("item 8: not measured: \(error)")
        }
    }
    await server.shutdown()

    if json {
        print(try Report.json(rows))
    } else {
        print("server: \(BenchServer.description)")
        print("ratio = courier / bare (req/s and MB/s: higher is better; us, ns, allocs, MiB: lower is better)")
        print(Report.table(rows))
        for note in notes { print(note) }
        if wanted("solo"), let reason = SoloCounts.instructionCounterUnavailability() {
            print("instructions per request: not counted (\(reason))")
        }
    }
}

// The work runs in a task while the main thread waits for it, instead of as
// top-level code that awaits: that would make the main thread drain the main
// queue, which on Linux parks it with `pthread_exit` in a signal wait, and
// valgrind 3.19 (`Benchmarks/layers --valgrind`) crashes at the next thread
// that starts after it.
let finished = DispatchSemaphore(value: 0)
Task.detached { [finished] in
    do {
        try await benchMain()
    } catch {
        log("courier-bench: \(error)")
        exit(1)
    }
    finished.signal()
}
finished.wait()
