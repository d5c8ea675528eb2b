//! The WAI-ARIA role vocabulary and the role characteristics the algorithms consult.
//!
//! One table (`ROLE_TABLE`) lists every concrete role we compute, with the characteristics of
//! WAI-ARIA 1.2 section 5.3 that matter here: whether the role supports name from content and
//! whether naming is prohibited. Abstract roles are listed apart: an author's abstract role is
//! ignored (WAI-ARIA 1.2, 5.3.1 "Authors MUST NOT use abstract roles in content").

/// A concrete WAI-ARIA role (1.2, plus the 1.3 additions that browsers already compute).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Role {
    Alert,
    AlertDialog,
    Application,
    Article,
    Banner,
    Blockquote,
    Button,
    Caption,
    Cell,
    Checkbox,
    Code,
    ColumnHeader,
    Combobox,
    Comment,
    Complementary,
    ContentInfo,
    Definition,
    Deletion,
    Dialog,
    Directory,
    Document,
    Emphasis,
    Feed,
    Figure,
    Form,
    Generic,
    GraphicsDocument,
    GraphicsObject,
    GraphicsSymbol,
    Grid,
    GridCell,
    Group,
    Heading,
    Image,
    Insertion,
    Link,
    List,
    ListBox,
    ListItem,
    Log,
    Main,
    Mark,
    Marquee,
    Math,
    Menu,
    MenuBar,
    MenuItem,
    MenuItemCheckbox,
    MenuItemRadio,
    Meter,
    Navigation,
    /// `none` and its synonym `presentation`.
    None,
    Note,
    Option,
    Paragraph,
    ProgressBar,
    Radio,
    RadioGroup,
    Region,
    Row,
    RowGroup,
    RowHeader,
    ScrollBar,
    Search,
    SearchBox,
    SectionFooter,
    SectionHeader,
    Separator,
    Slider,
    SpinButton,
    Status,
    Strong,
    Subscript,
    Suggestion,
    Superscript,
    Switch,
    Tab,
    Table,
    TabList,
    TabPanel,
    Term,
    TextBox,
    Time,
    Timer,
    Toolbar,
    Tooltip,
    Tree,
    TreeGrid,
    TreeItem,
}

/// How a role may be named (WAI-ARIA 1.2, 5.2.8.x "Accessible Name Calculation" and the list
/// "Roles Supporting Name from Content").
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Naming {
    /// Named from the author (labels, attributes) and, failing that, from its content.
    AuthorOrContents,
    /// Named from the author only.
    Author,
    /// Naming prohibited: aria-label and aria-labelledby are ignored on such elements.
    Prohibited,
}

use Naming::{Author, AuthorOrContents, Prohibited};

/// Every concrete role: its token, and how it is named.
///
/// We follow ARIA 1.2 except where a comment on the entry names the browser behaviour we follow.
const ROLE_TABLE: &[(Role, &str, Naming)] = &[
    (Role::Alert, "alert", Author),
    (Role::AlertDialog, "alertdialog", Author),
    (Role::Application, "application", Author),
    (Role::Article, "article", Author),
    (Role::Banner, "banner", Author),
    (Role::Blockquote, "blockquote", Author),
    (Role::Button, "button", AuthorOrContents),
    (Role::Caption, "caption", Prohibited),
    (Role::Cell, "cell", AuthorOrContents),
    (Role::Checkbox, "checkbox", AuthorOrContents),
    (Role::Code, "code", Prohibited),
    (Role::ColumnHeader, "columnheader", AuthorOrContents),
    (Role::Combobox, "combobox", Author),
    (Role::Comment, "comment", AuthorOrContents),
    (Role::Complementary, "complementary", Author),
    (Role::ContentInfo, "contentinfo", Author),
    // ARIA 1.2 lists definition as author-named; Chrome and Firefox agree.
    (Role::Definition, "definition", Author),
    (Role::Deletion, "deletion", Prohibited),
    (Role::Dialog, "dialog", Author),
    (Role::Directory, "directory", Author),
    (Role::Document, "document", Author),
    (Role::Emphasis, "emphasis", Prohibited),
    (Role::Feed, "feed", Author),
    (Role::Figure, "figure", Author),
    (Role::Form, "form", Author),
    (Role::Generic, "generic", Prohibited),
    (Role::GraphicsDocument, "graphics-document", Author),
    (Role::GraphicsObject, "graphics-object", AuthorOrContents),
    (Role::GraphicsSymbol, "graphics-symbol", Author),
    (Role::Grid, "grid", Author),
    (Role::GridCell, "gridcell", AuthorOrContents),
    (Role::Group, "group", Author),
    (Role::Heading, "heading", AuthorOrContents),
    (Role::Image, "image", Author),
    (Role::Insertion, "insertion", Prohibited),
    (Role::Link, "link", AuthorOrContents),
    (Role::List, "list", Author),
    (Role::ListBox, "listbox", Author),
    // ARIA 1.2 names listitem from the author only, and so does Chromium (issue 13: list items
    // named from their content disagreed with Chromium's tree on real pages). The tentative
    // WPT cases of accname/name/comp_name_from_pseudo_content_marker.tentative.html that
    // expect a name from content are in the native runner's known failures.
    (Role::ListItem, "listitem", Author),
    (Role::Log, "log", Author),
    (Role::Main, "main", Author),
    (Role::Mark, "mark", Prohibited),
    (Role::Marquee, "marquee", Author),
    (Role::Math, "math", Author),
    (Role::Menu, "menu", Author),
    (Role::MenuBar, "menubar", Author),
    (Role::MenuItem, "menuitem", AuthorOrContents),
    (Role::MenuItemCheckbox, "menuitemcheckbox", AuthorOrContents),
    (Role::MenuItemRadio, "menuitemradio", AuthorOrContents),
    (Role::Meter, "meter", Author),
    (Role::Navigation, "navigation", Author),
    (Role::None, "none", Prohibited),
    (Role::Note, "note", Author),
    (Role::Option, "option", AuthorOrContents),
    (Role::Paragraph, "paragraph", Prohibited),
    (Role::ProgressBar, "progressbar", Author),
    (Role::Radio, "radio", AuthorOrContents),
    (Role::RadioGroup, "radiogroup", Author),
    (Role::Region, "region", Author),
    (Role::Row, "row", AuthorOrContents),
    (Role::RowGroup, "rowgroup", Author),
    (Role::RowHeader, "rowheader", AuthorOrContents),
    (Role::ScrollBar, "scrollbar", Author),
    (Role::Search, "search", Author),
    (Role::SearchBox, "searchbox", Author),
    (Role::SectionFooter, "sectionfooter", Author),
    (Role::SectionHeader, "sectionheader", Author),
    (Role::Separator, "separator", Author),
    (Role::Slider, "slider", Author),
    (Role::SpinButton, "spinbutton", Author),
    (Role::Status, "status", Author),
    (Role::Strong, "strong", Prohibited),
    (Role::Subscript, "subscript", Prohibited),
    (Role::Suggestion, "suggestion", Prohibited),
    (Role::Superscript, "superscript", Prohibited),
    (Role::Switch, "switch", AuthorOrContents),
    (Role::Tab, "tab", AuthorOrContents),
    (Role::Table, "table", Author),
    (Role::TabList, "tablist", Author),
    (Role::TabPanel, "tabpanel", Author),
    // ARIA 1.2 names term from the author only; `name.rs` lets `<dt>` and role=term take
    // their content as Chromium does (`term_may_be_named_from_content`), but not `<dfn>`.
    (Role::Term, "term", Author),
    (Role::TextBox, "textbox", Author),
    (Role::Time, "time", Author),
    (Role::Timer, "timer", Author),
    (Role::Toolbar, "toolbar", Author),
    (Role::Tooltip, "tooltip", AuthorOrContents),
    (Role::Tree, "tree", Author),
    (Role::TreeGrid, "treegrid", Author),
    (Role::TreeItem, "treeitem", AuthorOrContents),
];

/// Abstract roles: never computed, and ignored when an author writes them.
pub const ABSTRACT_ROLES: &[&str] = &[
    "command",
    "composite",
    "input",
    "landmark",
    "range",
    "roletype",
    "section",
    "sectionhead",
    "select",
    "structure",
    "widget",
    "window",
];

/// Role tokens that are synonyms of another role (WAI-ARIA 1.2 5.4 and 1.3).
const SYNONYMS: &[(&str, Role)] = &[("presentation", Role::None), ("img", Role::Image)];

impl Role {
    /// The role's token as the specs and browsers spell it.
    pub fn as_str(self) -> &'static str {
        Self::entry(self).1
    }

    /// The role at this position of the enum (the inverse of `role as u8`).
    pub fn from_index(index: u8) -> Option<Role> {
        ROLE_TABLE.get(usize::from(index)).map(|entry| entry.0)
    }

    /// How elements with this role get their name.
    pub fn naming(self) -> Naming {
        Self::entry(self).2
    }

    /// Whether the role supports name from content (accname 1.2 step 2F).
    pub fn supports_name_from_content(self) -> bool {
        self.naming() == AuthorOrContents
    }

    /// Whether naming is prohibited for the role.
    pub fn prohibits_naming(self) -> bool {
        self.naming() == Prohibited
    }

    /// Parses one role token (ASCII case-insensitive). Abstract and unknown tokens give `None`.
    pub fn from_token(token: &str) -> Option<Role> {
        let lowercase = token.to_ascii_lowercase();
        if let Some((_, role)) = SYNONYMS.iter().find(|(name, _)| *name == lowercase) {
            return Some(*role);
        }
        ROLE_TABLE
            .iter()
            .find(|(_, name, _)| *name == lowercase)
            .map(|(role, _, _)| *role)
    }

    /// Widget roles: interactive roles that take focus or input (WAI-ARIA 1.2 "widget" subclasses
    /// and the composite widgets).
    pub fn is_widget(self) -> bool {
        matches!(
            self,
            Role::Button
                | Role::Checkbox
                | Role::Combobox
                | Role::GridCell
                | Role::Link
                | Role::ListBox
                | Role::Menu
                | Role::MenuBar
                | Role::MenuItem
                | Role::MenuItemCheckbox
                | Role::MenuItemRadio
                | Role::Option
                | Role::ProgressBar
                | Role::Radio
                | Role::RadioGroup
                | Role::ScrollBar
                | Role::SearchBox
                | Role::Slider
                | Role::SpinButton
                | Role::Switch
                | Role::Tab
                | Role::TabList
                | Role::TextBox
                | Role::Tree
                | Role::TreeGrid
                | Role::TreeItem
                | Role::Grid
        )
    }

    /// Landmark roles (WAI-ARIA 1.2 "landmark" subclasses).
    pub fn is_landmark(self) -> bool {
        matches!(
            self,
            Role::Banner
                | Role::Complementary
                | Role::ContentInfo
                | Role::Form
                | Role::Main
                | Role::Navigation
                | Role::Region
                | Role::Search
        )
    }

    fn entry(self) -> &'static (Role, &'static str, Naming) {
        // The table is ordered like the enum, so the discriminant is the index; the debug check
        // below keeps the two in step.
        let entry = &ROLE_TABLE[self as usize];
        debug_assert_eq!(
            entry.0, self,
            "ROLE_TABLE must follow the order of enum Role"
        );
        entry
    }
}

/// Whether `token` names an abstract role.
pub fn is_abstract_role(token: &str) -> bool {
    ABSTRACT_ROLES
        .iter()
        .any(|name| token.eq_ignore_ascii_case(name))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn role_table_follows_enum_order() {
        for (index, (role, _, _)) in ROLE_TABLE.iter().enumerate() {
            assert_eq!(
                *role as usize, index,
                "{role:?} is out of place in ROLE_TABLE"
            );
        }
    }

    #[test]
    fn tokens_round_trip() {
        for (role, name, _) in ROLE_TABLE {
            assert_eq!(Role::from_token(name), Some(*role));
            assert_eq!(Role::from_token(&name.to_ascii_uppercase()), Some(*role));
        }
        assert_eq!(Role::from_token("presentation"), Some(Role::None));
        assert_eq!(Role::from_token("img"), Some(Role::Image));
        assert_eq!(Role::from_token("widget"), None);
        assert_eq!(Role::from_token("nonsense"), None);
    }
}
