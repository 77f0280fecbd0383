// The telegram screen, changed on another branch meanwhile, still imports the header from here.
export { PageHeader } from '../../components/list-screen/page-header';
