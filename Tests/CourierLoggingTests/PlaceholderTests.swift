import CourierLogging
import Testing

@Test func placeholderLoggingLinks() {}
