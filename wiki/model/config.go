package model

import (
	"fmt"
	"net"
	"net/url"
	"strings"
	"time"
)

// Defaults: a local Ollama and a small model that runs on an 8 GB laptop.
const (
	DefaultBaseURL = "http://localhost:11434/v1"
	DefaultModel   = "llama3.2:3b"
	// DefaultOpenAIModel is the default model when the endpoint is OpenAI's.
	DefaultOpenAIModel = "gpt-4o-mini"
	// DefaultTimeout bounds one completion (a 3B model on a laptop takes
	// tens of seconds for a plan; a cold model load adds more).
	DefaultTimeout = 5 * time.Minute
	// DefaultProgressInterval is how often a completion in progress is
	// reported ([Client.Complete]): often enough to keep a client whose
	// request timeout resets on progress (the MCP TypeScript SDK's default is
	// 60 s) waiting for a model that takes minutes.
	DefaultProgressInterval = 5 * time.Second
	// Temperature of every completion.
	Temperature = 0.2
	// openAIOrigin is the only origin $OPENAI_API_KEY is ever sent to.
	openAIOrigin = "https://api.openai.com"
)

// Response formats ([Config.ResponseFormat]).
const (
	// FormatJSONObject asks for response_format {"type":"json_object"}:
	// OpenAI, Ollama, vLLM and llama.cpp's server honour it.
	FormatJSONObject = "json_object"
	// FormatJSONSchema sends the reply's JSON schema as response_format
	// {"type":"json_schema"} (constrained decoding on Ollama ≥ 0.5).
	FormatJSONSchema = "json_schema"
	// FormatNone sends no response_format; the prompt alone asks for JSON.
	FormatNone = "none"
)

// Environment variables read by [Resolve].
const (
	EnvBaseURL        = "LLMWIKI_BASE_URL"
	EnvModel          = "LLMWIKI_MODEL"
	EnvAPIKey         = "LLMWIKI_API_KEY"
	EnvTimeout        = "LLMWIKI_MODEL_TIMEOUT"
	EnvResponseFormat = "LLMWIKI_RESPONSE_FORMAT"
	EnvProgress       = "LLMWIKI_PROGRESS_INTERVAL"
	EnvOpenAIKey      = "OPENAI_API_KEY"
)

// Config says which endpoint and model to use. Build it with [Resolve].
type Config struct {
	// BaseURL is the endpoint's base URL, ending in /v1 for most servers.
	BaseURL string
	// Model is the model name the endpoint knows ("llama3.2:3b").
	Model string
	// APIKey is sent as a bearer token, and only to KeyOrigin.
	APIKey string
	// KeyOrigin is the scheme://host:port the key was configured for.
	KeyOrigin string
	// KeySource names where the key came from ("--api-key",
	// "$LLMWIKI_API_KEY"), for messages; never the key itself.
	KeySource string
	// Timeout bounds one completion (default [DefaultTimeout]).
	Timeout time.Duration
	// ResponseFormat is [FormatJSONObject] (default), [FormatJSONSchema] or
	// [FormatNone].
	ResponseFormat string
	// ProgressInterval is how often a completion that is still running is
	// reported to the context's progress function (default
	// [DefaultProgressInterval]; $LLMWIKI_PROGRESS_INTERVAL).
	ProgressInterval time.Duration
	// Notes are things a person should know about the configuration (a key
	// that was not used because it belongs to another host).
	Notes []string
}

// Flags are the command-line values that override the environment ("" and 0
// mean "not given").
type Flags struct {
	BaseURL, Model, APIKey, ResponseFormat string
	Timeout                                time.Duration
}

// Resolve builds a Config from flags, then the environment, then defaults.
// $LLMWIKI_PROGRESS_INTERVAL (a duration of at least 100ms) sets
// [Config.ProgressInterval].
//
// Keys are bound to an origin: --api-key to the base URL in effect;
// $LLMWIKI_API_KEY to $LLMWIKI_BASE_URL (or the default base URL when that is
// unset), so a --base-url that points elsewhere does not receive it;
// $OPENAI_API_KEY only to https://api.openai.com. A key whose origin differs
// from the base URL in effect is not used, and a note says so. An invalid base
// URL, response format or timeout is an error.
func Resolve(getenv func(string) string, f Flags) (Config, error) {
	var c Config
	envBase := strings.TrimSpace(getenv(EnvBaseURL))
	c.BaseURL = first(f.BaseURL, envBase, DefaultBaseURL)
	origin, err := Origin(c.BaseURL)
	if err != nil {
		return c, err
	}
	c.BaseURL = strings.TrimRight(c.BaseURL, "/")
	def := DefaultModel
	if origin == openAIOrigin {
		def = DefaultOpenAIModel
	}
	c.Model = first(f.Model, strings.TrimSpace(getenv(EnvModel)), def)
	c.ResponseFormat = first(f.ResponseFormat, strings.TrimSpace(getenv(EnvResponseFormat)), FormatJSONObject)
	switch c.ResponseFormat {
	case FormatJSONObject, FormatJSONSchema, FormatNone:
	default:
		return c, fmt.Errorf("response format %q is not one of %s, %s, %s", c.ResponseFormat, FormatJSONObject, FormatJSONSchema, FormatNone)
	}
	c.Timeout = f.Timeout
	if c.Timeout == 0 {
		if v := strings.TrimSpace(getenv(EnvTimeout)); v != "" {
			d, err := time.ParseDuration(v)
			if err != nil || d <= 0 {
				return c, fmt.Errorf("$%s=%q is not a positive duration like 90s or 5m", EnvTimeout, v)
			}
			c.Timeout = d
		}
	}
	if c.Timeout == 0 {
		c.Timeout = DefaultTimeout
	}
	if c.Timeout < 0 {
		return c, fmt.Errorf("timeout must be positive")
	}
	c.ProgressInterval = DefaultProgressInterval
	if v := strings.TrimSpace(getenv(EnvProgress)); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil || d < 100*time.Millisecond {
			return c, fmt.Errorf("$%s=%q is not a duration of at least 100ms, like 5s", EnvProgress, v)
		}
		c.ProgressInterval = d
	}

	type key struct{ value, origin, source string }
	var keys []key
	if f.APIKey != "" {
		keys = append(keys, key{f.APIKey, origin, "--api-key"})
	}
	if v := strings.TrimSpace(getenv(EnvAPIKey)); v != "" {
		o, err := Origin(first(envBase, DefaultBaseURL))
		if err != nil {
			return c, err
		}
		keys = append(keys, key{v, o, "$" + EnvAPIKey})
	}
	if v := strings.TrimSpace(getenv(EnvOpenAIKey)); v != "" {
		keys = append(keys, key{v, openAIOrigin, "$" + EnvOpenAIKey})
	}
	for _, k := range keys {
		if k.origin == origin {
			c.APIKey, c.KeyOrigin, c.KeySource = k.value, k.origin, k.source
			break
		}
	}
	for _, k := range keys {
		if k.origin != origin && c.APIKey == "" {
			c.Notes = append(c.Notes, fmt.Sprintf("%s is configured for %s, not %s, so it is not sent; pass --api-key to use a key with this endpoint", k.source, k.origin, origin))
		}
	}
	if c.APIKey != "" && strings.HasPrefix(origin, "http://") && !isLoopback(origin) {
		c.Notes = append(c.Notes, fmt.Sprintf("the API key travels unencrypted to %s (http, not https)", origin))
	}
	return c, nil
}

// Origin returns "scheme://host:port" of a base URL (the default port made
// explicit, the host lowercased). Only http and https URLs with a host and
// no user information are accepted.
func Origin(raw string) (string, error) {
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "", fmt.Errorf("base URL %q must be an http(s) URL like %s", raw, DefaultBaseURL)
	}
	if u.User != nil {
		return "", fmt.Errorf("base URL must not carry a user name or password; use --api-key or $%s", EnvAPIKey)
	}
	if u.RawQuery != "" || u.Fragment != "" {
		return "", fmt.Errorf("base URL %q must not have a query or fragment", raw)
	}
	return originOf(u), nil
}

func originOf(u *url.URL) string {
	host := strings.ToLower(u.Hostname())
	port := u.Port()
	if port == "" {
		port = "80"
		if u.Scheme == "https" {
			port = "443"
		}
	}
	o := u.Scheme + "://" + net.JoinHostPort(host, port)
	if o == "https://api.openai.com:443" {
		return openAIOrigin
	}
	return o
}

func isLoopback(origin string) bool {
	u, err := url.Parse(origin)
	if err != nil {
		return false
	}
	h := u.Hostname()
	if h == "localhost" {
		return true
	}
	ip := net.ParseIP(h)
	return ip != nil && ip.IsLoopback()
}

// Host returns the host:port of the base URL, for messages and audit lines.
func (c Config) Host() string {
	u, err := url.Parse(c.BaseURL)
	if err != nil {
		return c.BaseURL
	}
	return u.Host
}

// IsLocal reports whether the endpoint is on this machine.
func (c Config) IsLocal() bool {
	o, err := Origin(c.BaseURL)
	return err == nil && isLoopback(o)
}

func first(vals ...string) string {
	for _, v := range vals {
		if v = strings.TrimSpace(v); v != "" {
			return v
		}
	}
	return ""
}
