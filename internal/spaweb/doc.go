// Package spaweb serves a generated single-page-application site for the
// tests and benchmarks of rendering: every page is the same empty shell,
// and its links and text are built by a script after load, so that only a
// crawler that renders finds more than the first page.
//
// The site has Pages pages /p/0 ... /p/N-1 (page i links to 2i+1 and
// 2i+2, a binary tree, so every page is reached from /), and pages that
// misbehave, each linked from /:
//
//	/timer   its link (/timer/found) is added 300 ms after load
//	/scroll  endless scrolling: items appended forever on a timer chain;
//	         the first item links to /scroll/found
//	/loop    a script that never returns, after adding a link (/loop/found)
//	/popup   opens popups (/popup/window) and links to /popup/found
//	/away    links to /away/found, then navigates to /away/gone
//	/errors  prints 5000 console errors and links to /errors/found
//	/download  links to /download/found, then clicks a link that
//	         downloads /files/report.bin (served as an attachment)
//
// and one linked from nowhere, for the renderer's own tests:
//
//	/alloc   allocates memory without bound until the tab dies
//
// Each page also asks for /private/data.json (disallowed by robots.txt)
// and for a script on Offsite (another host), which a crawl must refuse.
package spaweb
