// Package redacttest holds fake secrets of the shapes the redaction rules
// look for, for the tests of redact and of what uses it. Each says FAKE or
// EXAMPLE so nobody mistakes one for a real credential; none is valid
// anywhere.
package redacttest

const (
	FakeOpenAI     = "sk-proj-FAKE9naHVck6pbd4ZRj2SxphvDTwrzqwo72n3wZuot7UGAoKD1AFfDKZxCKu7SPCzX3ZeF981bT3BlbkFJmiIlN8YS2UbsHFj42g5hzdeDU16Jsz7GolI8Gwfpttk0Ouy5Ev3CYeW61YrEjhRFyya1q7FAKE"
	FakeAnthropic  = "sk-ant-api03-FAKE9VfsecC5d8qk0FKE3FcGdE1fK9DoXWLCSUqRfNadvWP1yBwdN7TtMCtJ0bZB535ya5Q6wNy6HajqpFGvu6pRLFAKEAA"
	FakeAWSKeyID   = "AKIAEXAMPLE2FAKE7KEY"
	FakeAWSSecret  = "FAKEt9pFBY2CK08Z8CPWTRWQQmq+CDjwNGBEFAKE"
	FakeGitHubPAT  = "ghp_FAKEuFuaMwSov7d2lP3GU8g1UKzv352ivguv"
	FakeGitHubFine = "github_pat_11FAKEDVNJNEK6hz7YLagY_TPD1kPmLIJNWuxzoJPHOhHUDLk1TRX6vD3MKQ9AbrviWrwldD6SLYngePqn"
	FakeSlackBot   = "xoxb-178235290563-6259282777792-FAKEBeBr7CVpQ8bCvz5PkcQL"
	FakeStripe     = "sk_live_FAKEaNRDCbvC4DMYqyDZCzSOGWhk"
	FakeGoogle     = "AIzaSyFAKEO59Q7kBCvZnZQP5GwI1pMCIuHLt5E"
	FakeJWT        = "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiJGQUtFLXVzZXItNDIiLCJuYW1lIjoiRkFLRSJ9.RkFLRS1zaWduYXR1cmUtOWQ3Yy1GQUtF"
	FakeBearer     = "FAKE.G.xE-VuBQofHhCeTYQLOPU1Wb8D"
	FakeDBPassword = "shopPassw0rd-FAKE!"
	FakeDBToken    = "Zx9FakeTok3nQ7wL2"
	FakePassword   = "hunter2-FAKE"
	FakePEMBody    = "MIIEowIBAAKCAQEAEXAMPLE1iv3rphlfX3TtzSlrgSHg4dsa49CsvXEC2Q/gpxYKOnI\ntbFG4sYKjWCg/SvwzonLVxEqL3r9FcreV2k9QvUh6h+QvEZU4YUWisJEpmiBZAOj\n3TBfWz21ccaskm9Ox07fomXtcq/KMNPV6FitNWQ/2IwN4LCaVWDZVGjbziUeMDMc\nFAKEMGpMJE+U/S296/5zBQ4T=="
	FakePEM        = "-----BEGIN RSA PRIVATE KEY-----\n" + FakePEMBody + "\n-----END RSA PRIVATE KEY-----"
)
