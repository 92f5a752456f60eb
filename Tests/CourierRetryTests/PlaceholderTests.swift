import CourierRetry
import Testing

@Test func placeholderRetryLinks() {}
