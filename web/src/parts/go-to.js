// go-to.js — "Show me" and "see one": a place on the page, loaded through the element's state.
// A target is { section, patch, field? }: a view id of the registry (or 'controls', the shape form),
// the state patch that shows the thing there, and for the form the field to scroll to.
//   - the element shows that section: the patch is applied (ctx.setState) and the page scrolls there as
//     the contents list does (its link: the same scrolling, the heading focused); the form: to the field,
//     whose error (role="alert") is announced;
//   - the element shows only one view (an embed), and not that section: the full playground opens with
//     the patch (ctx.openPlayground), in a new tab.

/**
 * @param {object} ctx  the view's context (setState, openPlayground)
 * @param {Node} node   an element of the view (to find the element's shadow root)
 * @param {{ section: string, patch?: object, field?: string }} target
 * @returns {'applied' | 'opened' | null} null: a single view that does not know where the playground is
 */
export function goTo(ctx, node, { section, patch = {}, field = '' }) {
  const root = node.getRootNode();
  const slot = root.querySelector?.(`[data-slot="${section}"]`);
  if (!slot) return ctx.openPlayground(patch);
  ctx.setState(patch);
  const link = root.querySelector(`nav [data-go="${section}"]`);
  if (link) {
    link.click();
  } else {
    const box = (field && slot.querySelector(`[data-field="${field}"]`)) || slot;
    box.scrollIntoView({ block: field ? 'center' : 'start' });
  }
  return 'applied';
}
