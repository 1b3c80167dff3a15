package httpapi

import "net/http"

// PageSecurityHeaders go on every response of a function that serves HTML
// pages (the dashboard, the error-code reference page), errors included:
// scripts and styles only from the site's own files (no inline script, no
// eval), requests only to the same origin (the API), never framed, no
// referrer leaving the page. They live here, with the rest of the HTTP
// contract, so that each page's package uses them without importing
// another's.
var PageSecurityHeaders = http.Header{
	"Content-Security-Policy": {"default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; " +
		"object-src 'none'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'"},
	"Referrer-Policy":        {"no-referrer"},
	"X-Content-Type-Options": {"nosniff"},
	"X-Frame-Options":        {"DENY"},
}
