/**
 * The dashboard's Mantine theme, tuned so text meets WCAG AA contrast (4.5:1): the primary colour uses a
 * darker shade, "light" and "dot" variants (badges, active nav links, light buttons) get darker text, dimmed text is
 * gray 7 instead of gray 6 (also in toasts), field errors are red 9 instead of red 6 (3.3:1 on white), links a
 * darkened teal 9 (teal 9 itself is 4.49:1 on a highlighted row's gray 1), and the close
 * buttons of dialogs and toasts have an accessible name.
 */
import {
  type CSSVariablesResolver,
  createTheme,
  darken,
  defaultVariantColorsResolver,
  Modal,
  NavLink,
  Notification,
  parseThemeColor,
  type VariantColorsResolver,
} from "@mantine/core";

/** Colours whose shade 9 is still too light as text on their own light background. */
const PALE = new Set(["yellow", "orange", "lime"]);

const variantColorResolver: VariantColorsResolver = (input) => {
  const result = defaultVariantColorsResolver(input);
  if (input.variant !== "light" && input.variant !== "dot") return result;
  const parsed = parseThemeColor({ color: input.color ?? input.theme.primaryColor, theme: input.theme });
  if (!parsed.isThemeColor || !input.theme.colors[parsed.color]) return result;
  // Shade 9 on shade 1 is only ~4.3:1 for teal (2.7:1 for yellow); darkened it clears 4.5:1 everywhere.
  const shade = input.theme.colors[parsed.color]?.[9] ?? "";
  const color = darken(shade, PALE.has(parsed.color) ? 0.35 : 0.2);
  return { ...result, color, hoverColor: color };
};

export const theme = createTheme({
  primaryColor: "teal",
  primaryShade: { light: 9, dark: 7 },
  defaultRadius: "md",
  fontFamily: "system-ui, -apple-system, 'Segoe UI', Roboto, 'Helvetica Neue', Arial, sans-serif",
  variantColorResolver,
  // Transitions, loaders and skeletons stand still for people whose system asks for reduced motion (WCAG 2.3.3).
  respectReducedMotion: true,
  components: {
    Modal: Modal.extend({ defaultProps: { closeButtonProps: { "aria-label": "Close dialog" } } }),
    // Toasts (@mantine/notifications renders this component): the message under a title is gray 6 by default.
    Notification: Notification.extend({
      defaultProps: { closeButtonProps: { "aria-label": "Dismiss notification" } },
      styles: { description: { color: "var(--mantine-color-dimmed)" } },
    }),
    // An explicit variant makes NavLink take its colours from `variantColorResolver` above.
    NavLink: NavLink.extend({ defaultProps: { variant: "light" } }),
  },
});

export const cssVariablesResolver: CSSVariablesResolver = (resolved) => ({
  variables: {},
  light: {
    "--mantine-color-dimmed": "var(--mantine-color-gray-7)",
    "--mantine-color-error": "var(--mantine-color-red-9)",
    // Links in a highlighted table row sit on gray 1, where teal 9 is 4.49:1.
    "--mantine-color-anchor": darken(resolved.colors.teal?.[9] ?? "#087f5b", 0.15),
  },
  dark: {},
});
