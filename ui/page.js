// The session page's one script (ui/page.py inlines it; the page's CSP admits it by hash).
// It does nothing at load but listen: the buttons open or close every call, and printing
// opens the closed ones for the print and closes them again after.
(() => {
  const every = () => document.querySelectorAll("details");
  const setAll = (open) => every().forEach((details) => { details.open = open; });
  document.getElementById("open-all").addEventListener("click", () => setAll(true));
  document.getElementById("close-all").addEventListener("click", () => setAll(false));
  let openedForPrint = [];
  window.addEventListener("beforeprint", () => {
    openedForPrint = [...every()].filter((details) => !details.open);
    openedForPrint.forEach((details) => { details.open = true; });
  });
  window.addEventListener("afterprint", () => {
    openedForPrint.forEach((details) => { details.open = false; });
    openedForPrint = [];
  });
})();
