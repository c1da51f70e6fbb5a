// Package render loads fetched pages in headless Chromium, so that the
// crawler sees the links and text that a page's scripts build: it
// implements [crawler.Renderer].
//
// A [Pool] runs one browser process (Debian's chromium, never a
// downloaded one) with a fixed number of tabs, each in its own browser
// context so that a tab's renderer process is its own. A render gives
// the tab the bytes the crawler fetched (the page is not fetched again)
// and answers every request the page makes through
// [crawler.RenderJob.Fetch], by Chrome's Fetch-domain interception: the
// request counts against its origin's delay and robots.txt, and one the
// crawl refuses (another site, a method other than GET) fails in the
// page. The browser itself has no network: it is started with a proxy
// that does not exist, so nothing escapes the interception (WebSockets,
// a popup's requests).
//
// A page is done when its load event has fired, no request of it is in
// flight, no timer of up to 2 s is pending and its document has not
// changed for Options.Quiet; or at Options.Timeout, when the document is
// taken as it is (endless scrolling). The document is serialised
// (doctype and outerHTML); with a screenshot asked for, the first screen
// (Options.Width x Options.Height) is captured as PNG.
//
// # Failures
//
// A tab that crashes (a script that allocates past the heap limit) or
// whose page never lets its document be read (a script that loops) fails
// the render, and the tab is replaced. The browser is restarted when it
// dies, stops answering, or when its processes together use more than
// Options.MaxMemory; renders in flight in a browser being replaced
// finish first.
//
// # Processes
//
// The browser runs in its own process group. Pool.Close kills the group;
// so does a small watcher (/bin/sh reading a pipe that only the crawler
// holds) when the crawler dies, even by SIGKILL, so that no browser
// process outlives it.
//
// # Caveats
//
//   - Popups (window.open) and dialogs are refused; a navigation of the
//     page away from its URL is blocked: its target is not rendered.
//   - The served bytes are given to the browser with their Content-Type
//     only; other response headers (CSP, cookies) of the page are not.
//   - Linux only for the process group and memory cap (/proc).
package render
